package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"hub/assistant"
	"hub/config"
	"hub/fakemodel"
	"hub/files"
	"hub/llm"
	"hub/playbooks"
	"hub/retrieval"
	"hub/storage"
	"hub/workspace"
)

// evalCommand groups the evaluations (docs/offer.md, "Tool-selection
// evaluation").
func evalCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "eval", Short: "Evaluate what the assistant is offered and what search finds, without a model"}
	cmd.AddCommand(evalOfferCommand(), evalSelectCommand(), evalRetrievalCommand())
	return cmd
}

// evalOfferCommand prints, for each labelled request, where its expected
// tool landed in the offer and the overall recall@24: the table behind
// TestOfferRecallHoldsItsBaseline, for reading rather than gating.
func evalOfferCommand() *cobra.Command {
	var (
		distractors int
		casesFile   string
		missesOnly  bool
	)
	cmd := &cobra.Command{
		Use:   "offer",
		Short: "Recall@24 of each labelled request's expected tools in its offer",
		Long: "Builds the bounded tool offer for every request of the labelled set (assistant/testdata/offer_eval.json,\n" +
			"built in) as an owner's turn would, against Hub's tools plus --distractors synthetic tools of other apps,\n" +
			"and prints the request, the expected tool, its position in the offer (- when not offered, n/a when the\n" +
			"tool is not registered), the offer's size and whether the fallback ranked it; then recall@24.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, err := assistant.OfferEvalSet()
			if casesFile != "" {
				raw, rerr := os.ReadFile(casesFile)
				if rerr != nil {
					return fmt.Errorf("read the labelled set: %w", rerr)
				}
				set, err = assistant.ParseEvalSet(raw)
			}
			if err != nil {
				return err
			}
			all, err := playbooks.All()
			if err != nil {
				return err
			}
			if distractors < 0 {
				return fmt.Errorf("--distractors must be 0 or more, not %d", distractors)
			}
			reg := assistant.EvalRegistry(all, distractors)
			rep := assistant.EvalOffer(set.Cases, reg, all)

			out := cmd.OutOrStdout()
			w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "REQUEST\tEXPECTED\tPOSITION\tOFFERED\tFALLBACK")
			for _, r := range rep.Rows {
				if missesOnly && r.Position != 0 {
					continue
				}
				pos := fmt.Sprint(r.Position)
				switch r.Position {
				case 0:
					pos = "-"
				case -1:
					pos = "n/a"
				}
				fallback := ""
				if r.Fallback {
					fallback = "yes"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\n", cut(r.Request, 64), r.Expected, pos, r.OfferSize, fallback)
			}
			if err := w.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(out, "\nrecall@%d: %.3f (%d of %d expected tools offered; %d not registered, skipped) over %d requests, %d tools registered\n",
				assistant.MaxOfferedTools, rep.Recall(), rep.Hits, rep.Counted, rep.Skipped, len(set.Cases), len(reg.Granted(workspace.RoleOwner)))
			return nil
		},
	}
	cmd.Flags().IntVar(&distractors, "distractors", 1500, "synthetic tools of other apps registered beside Hub's (0: Hub's tools alone)")
	cmd.Flags().StringVar(&casesFile, "cases", "", "a labelled set in the offer_eval.json format (default: the built-in set)")
	cmd.Flags().BoolVar(&missesOnly, "misses", false, "list only the expected tools that were not offered")
	return cmd
}

// cut shortens s to n characters for a table cell.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// evalSelectCommand sends every labelled request's first model request to
// the configured model (OPENAI_BASE_URL / OPENAI_API_KEY / HUB_MODEL) and
// reports whether it called an expected tool.
func evalSelectCommand() *cobra.Command {
	var distractors int
	cmd := &cobra.Command{
		Use:   "select",
		Short: "Whether the configured model calls each labelled request's expected tool",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.FromEnv(nil)
			if err != nil {
				return err
			}
			if !cfg.Model.Configured() {
				return fmt.Errorf("%s", llm.UnavailableMessage)
			}
			set, err := assistant.OfferEvalSet()
			if err != nil {
				return err
			}
			all, err := playbooks.All()
			if err != nil {
				return err
			}
			rep := assistant.EvalSelect(cmd.Context(), llm.New(cfg.Model, nil), set.Cases, assistant.EvalRegistry(all, distractors), all)
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "hit\trequest\texpected\tcalled\terror")
			for _, r := range rep.Rows {
				mark := "-"
				if r.Hit {
					mark = "yes"
				}
				fmt.Fprintf(w, "%s\t%s\t%v\t%v\t%s\n", mark, r.Request, r.Expect, r.Called, r.Err)
			}
			if err := w.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), rep)
			return nil
		},
	}
	cmd.Flags().IntVar(&distractors, "distractors", 0, "synthetic tools of other apps added to the registry")
	return cmd
}

// evalRetrievalCommand prints, for each labelled question, where its
// expected passage ranked and the recall@5 and MRR: the table behind
// TestRetrievalEvalHoldsItsBaseline (docs/retrieval.md, "Evaluation").
func evalRetrievalCommand() *cobra.Command {
	var (
		databaseURL, setDir, mode string
		missesOnly                bool
	)
	cmd := &cobra.Command{
		Use:   "retrieval",
		Short: "Recall@5 and MRR of the labelled questions over the labelled documents",
		Long: "Uploads and indexes the documents of the labelled set (retrieval/testdata/eval, built in) into a new space of\n" +
			"a fresh database (a temporary SQLite file, or --database-url), asks every question with the tool its shape\n" +
			"calls for (concept: hub_search_files, exact: hub_find_phrase) and prints the rank of its expected passage\n" +
			"among the first 10 results (- when not among them), then recall@5 and MRR by shape and overall.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fsys := retrieval.EvalFiles()
			if setDir != "" {
				fsys = os.DirFS(setDir)
			}
			set, err := retrieval.LoadEvalSet(fsys)
			if err != nil {
				return err
			}
			return evalRetrieval(cmd.Context(), cmd.OutOrStdout(), set, databaseURL, retrieval.Mode(mode), missesOnly)
		},
	}
	cmd.Flags().StringVar(&databaseURL, "database-url", "",
		"a fresh, empty database to index into (postgres:// or a SQLite path; default: a temporary SQLite file)")
	cmd.Flags().StringVar(&setDir, "set", "", "a labelled set in a directory: questions.json and docs/ (default: the built-in set)")
	cmd.Flags().StringVar(&mode, "mode", string(retrieval.ModeLexical), "the search measured: lexical or fused")
	cmd.Flags().BoolVar(&missesOnly, "misses", false, "list only the questions whose passage is not in the first 5")
	return cmd
}

// evalRetrieval indexes set into the database at url (a temporary SQLite
// file when "") and prints the evaluation of mode to out.
func evalRetrieval(ctx context.Context, out io.Writer, set retrieval.EvalSet, url string, mode retrieval.Mode, missesOnly bool) error {
	dir, err := os.MkdirTemp("", "hub-eval-retrieval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if url == "" {
		url = filepath.Join(dir, "hub.db")
	}
	db, err := storage.Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	blobs, err := files.NewDirStore(filepath.Join(dir, "files"))
	if err != nil {
		return err
	}
	store := retrieval.NewStore(db)
	if mode == retrieval.ModeFused {
		store.Embedder = fakemodel.Embedder{}
	}
	space, err := retrieval.IndexEvalSet(ctx, db, blobs, set, store.Embedder)
	if err != nil {
		return err
	}
	search, err := store.EvalSearch(mode, space)
	if err != nil {
		return err
	}
	rep, err := retrieval.Evaluate(ctx, set, search)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "RANK\tSHAPE\tQUESTION\tEXPECTED\tBEST")
	for _, r := range rep.Rows {
		if missesOnly && r.Rank > 0 && r.Rank <= retrieval.DefaultLimit {
			continue
		}
		rank := "-"
		if r.Rank > 0 {
			rank = fmt.Sprint(r.Rank)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", rank, r.Question.Shape, cut(r.Question.Question, 72), r.Question.Expect[0].File, r.Top)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(out, "\n%s search over %d documents (%s):\n", mode, len(set.Docs), storage.DialectOf(url))
	for _, s := range []struct {
		name  string
		score retrieval.EvalScore
	}{{"concept", rep.Concept}, {"exact", rep.Exact}, {"all", rep.All}} {
		fmt.Fprintf(out, "  %-8s recall@5 %.3f  MRR %.3f  (%d questions)\n", s.name, s.score.Recall, s.score.MRR, s.score.Questions)
	}
	return nil
}
