package main

import (
	"github.com/spf13/cobra"

	"hub/api"
)

// openapiCommand prints the api's OpenAPI 3.1 document: the bytes
// /api/openapi.json serves (and docs/openapi.json holds), for generating a
// client without a running Hub.
func openapiCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "openapi",
		Short: "Print the api's OpenAPI 3.1 document (what /api/openapi.json serves)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			doc, err := api.OpenAPIDocument()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(doc)
			return err
		},
	}
}
