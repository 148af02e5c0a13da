package main

import (
	"cmp"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print what this binary was built from: module version, commit, commit time, uncommitted changes, Go version",
		Args:  cobra.NoArgs,
		Run:   func(cmd *cobra.Command, _ []string) { readBuild().write(cmd.OutOrStdout()) },
	}
}

// build is what `hub version` reports, from the information the Go
// toolchain stamps into the binary (`go build` inside the git checkout
// stamps the vcs.* settings; `go run` and builds outside it do not).
type build struct {
	version, revision, time, modified, goVersion string
}

func readBuild() build {
	b, ok := debug.ReadBuildInfo()
	if !ok {
		return build{version: "unknown", goVersion: "unknown"}
	}
	v := build{version: cmp.Or(b.Main.Version, "(devel)"), goVersion: b.GoVersion}
	for _, s := range b.Settings {
		switch s.Key {
		case "vcs.revision":
			v.revision = s.Value
		case "vcs.time":
			v.time = s.Value
		case "vcs.modified":
			v.modified = s.Value
		}
	}
	return v
}

func (v build) write(w io.Writer) {
	fmt.Fprintf(w, "hub %s\n", v.version)
	if v.revision == "" {
		fmt.Fprintln(w, "commit    unknown (not stamped: build with `go build ./cmd/hub` inside the git checkout)")
	} else {
		fmt.Fprintf(w, "commit    %s\n", v.revision)
		fmt.Fprintf(w, "committed %s\n", cmp.Or(v.time, "unknown"))
		fmt.Fprintf(w, "modified  %s\n", cmp.Or(v.modified, "unknown"))
	}
	fmt.Fprintf(w, "go        %s\n", v.goVersion)
}

// short is the one line `hub --version` prints after "hub version".
func (v build) short() string {
	parts := []string{v.version}
	if v.revision != "" {
		rev := v.revision[:min(len(v.revision), 12)]
		if v.modified == "true" {
			rev += "+modified"
		}
		parts = append(parts, rev)
	}
	return strings.Join(append(parts, v.goVersion), " ")
}
