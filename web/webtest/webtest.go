// Package webtest makes inputs for the tests of packages web, retrieval
// and e2e: PDFs, and a zlib stream that inflates to many megabytes (the
// content of a PDF bomb), made in milliseconds. Production code never
// imports it.
package webtest

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"fmt"
)

// ZlibSpaces is a zlib stream that inflates to n spaces, without
// compressing them all (tens of seconds under the race detector).
//
// 256 KiB of spaces are compressed in three sync-flushed blocks: the first,
// a second (back-references only, so valid after any 32 KiB of spaces and
// repeated as often as n needs), and the rest short of a whole block; a
// final empty stored block and the Adler-32 of n spaces end the stream.
func ZlibSpaces(n int) []byte {
	const chunk = 256 << 10
	if n < 2*chunk {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		_, _ = zw.Write(bytes.Repeat([]byte{' '}, n))
		_ = zw.Close()
		return z.Bytes()
	}
	spaces := bytes.Repeat([]byte{' '}, chunk)
	var d bytes.Buffer
	fw, _ := flate.NewWriter(&d, flate.BestCompression)
	block := func(p []byte) []byte {
		from := d.Len()
		_, _ = fw.Write(p)
		_ = fw.Flush() // ends the block on a byte boundary (an empty stored block)
		return bytes.Clone(d.Bytes()[from:])
	}
	first, again, rest := block(spaces), block(spaces), block(spaces[:n%chunk])

	out := bytes.NewBuffer([]byte{0x78, 0xda}) // zlib header: deflate, 32 KiB window, best compression
	out.Write(first)
	for range n/chunk - 1 {
		out.Write(again)
	}
	out.Write(rest)
	out.Write([]byte{0x01, 0x00, 0x00, 0xff, 0xff}) // a final stored block of no bytes
	return binary.BigEndian.AppendUint32(out.Bytes(), adler32Spaces(n))
}

// adler32Spaces is the Adler-32 checksum of n spaces: after i bytes of 32,
// a is 1 + 32i and b the sum of the a's so far.
func adler32Spaces(n int) uint32 {
	const mod = 65521
	m := uint64(n)
	a := (1 + 32*m) % mod
	b := (m + 32*(m*(m+1)/2%mod)) % mod
	return uint32(b<<16 | a)
}

// PDF is a PDF of the objects given (numbered from 1, the first the
// catalog), with a correct cross-reference table.
func PDF(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// OnePagePDF is a one-page PDF around a content stream as it is, with its
// /Filter entry (" /Filter /FlateDecode", or "").
func OnePagePDF(content []byte, filter string) []byte {
	return PDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d%s >>\nstream\n%s\nendstream", len(content), filter, content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
}
