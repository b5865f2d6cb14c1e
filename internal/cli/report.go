package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
)

func (a *app) reportCommand() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report RESULT.json...",
		Short: "Re-render saved results; several are merged exactly (histograms, counts)",
		RunE: func(cmd *cobra.Command, files []string) error {
			if len(files) == 0 {
				return usage(errors.New("no result files given: txnbench report RESULT.json..."))
			}
			var rs []*result.Result
			for _, f := range files {
				r, err := result.Load(f)
				if err != nil {
					return usage(err)
				}
				rs = append(rs, r)
			}
			m, err := result.Merge(rs)
			if err != nil {
				return usage(err)
			}
			report.Summary(a.stdout, m)
			if out != "" {
				if err := m.Save(out); err != nil {
					return err
				}
				a.status("merged result saved to " + out)
			}
			if m.Invariants != nil && !m.Invariants.OK {
				bad := 0
				for _, r := range rs {
					if r.Invariants != nil && !r.Invariants.OK {
						bad++
					}
				}
				return exitError{code: ExitInvariants, msg: fmt.Sprintf("invariants violated in %d of the %d results", bad, len(rs))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "json", "", "also write the (merged) result to this file")
	return cmd
}
