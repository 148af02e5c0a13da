package main

import (
	"github.com/spf13/cobra"

	"hub/fakemodel"
)

func fakemodelCommand() *cobra.Command {
	var addr, script string
	cmd := &cobra.Command{
		Use:   "fakemodel",
		Short: "Serve the scripted OpenAI-compatible test double on loopback (not a real model)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return fakemodel.Run(cmd.Context(), addr, script, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8090", "loopback address to listen on")
	cmd.Flags().StringVar(&script, "script", "", "script file (JSON); empty uses the built-in demo script")
	return cmd
}
