//go:build e2e

package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// BenchmarkFileUpload measures POST /api/spaces/:spaceId/files for a 1 MiB
// text file and a 5 MiB one (multipart through the api, the type sniffed,
// the blob written to the local store, the row saved) until the 201.
func BenchmarkFileUpload(b *testing.B) {
	s := hubtest.Start(b, hubtest.Options{NoModel: true})
	for _, size := range []int{1 << 20, 5 << 20} {
		data := textOf(size)
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			var d []time.Duration
			for b.Loop() {
				start := time.Now()
				r := upload(b, s, s.Token, s.SpaceID, "notes.txt", data)
				d = append(d, time.Since(start))
				require.Equal(b, http.StatusCreated, r.Status, "%s", r.Body)
			}
			b.SetBytes(int64(size))
			report(b, d)
		})
	}
}

// BenchmarkTurnWithFiles measures a one-step turn (the model answers in
// text) with 0 and 8 attached files, 4 pictures of 256 KiB and 4 text
// files of 256 KiB: the files read from the store, base64-encoded into the
// request, and the 2 MiB of parts sent to the model; POST to done.
func BenchmarkTurnWithFiles(b *testing.B) {
	s := hubtest.Start(b, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Seen."}}]}`)})
	var ids []string
	for i := range 8 {
		name, data := fmt.Sprintf("notes-%d.txt", i), textOf(256<<10)
		if i%2 == 0 {
			name, data = fmt.Sprintf("photo-%d.png", i), append(append([]byte{}, tinyPNG...), make([]byte, 256<<10)...)
		}
		r := upload(b, s, s.Token, s.SpaceID, name, data)
		require.Equal(b, http.StatusCreated, r.Status, "%s", r.Body)
		ids = append(ids, r.JSON(b)["id"].(string))
	}
	for _, n := range []int{0, 8} {
		b.Run(fmt.Sprintf("%d-files", n), func(b *testing.B) {
			var d []time.Duration
			for b.Loop() {
				s.Model.Reset()
				conv := s.Conversation(b)
				start := time.Now()
				r := s.Do(b, s.Token, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": "look", "files": ids[:n]})
				require.Equal(b, http.StatusAccepted, r.Status, "%s", r.Body)
				var st hubtest.Started
				r.Decode(b, &st)
				events := s.Stream(b, st.StreamURL, 0, 0)
				d = append(d, time.Since(start))
				require.Equal(b, "done", events[len(events)-1].Data["status"])
			}
			reqs := s.Model.Requests()
			msgs := reqs[len(reqs)-1].Messages
			require.Len(b, msgs[len(msgs)-1].Parts, n)
			report(b, d)
		})
	}
}

// textOf is size bytes of ASCII words.
func textOf(size int) []byte {
	out := make([]byte, size)
	for i := range out {
		if i%8 == 7 {
			out[i] = ' '
		} else {
			out[i] = byte('a' + rand.IntN(26))
		}
	}
	return out
}
