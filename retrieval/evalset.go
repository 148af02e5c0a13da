package retrieval

import (
	"embed"
	"io/fs"
)

// evalFiles is the labelled set of the retrieval evaluation; its generator
// (testdata/eval/gen) is left out.
//
//go:embed testdata/eval/questions.json testdata/eval/docs
var evalFiles embed.FS

// EvalFiles is the labelled set for LoadEvalSet.
func EvalFiles() fs.FS {
	sub, err := fs.Sub(evalFiles, "testdata/eval")
	if err != nil {
		panic(err) // a constant path of the embedded tree
	}
	return sub
}
