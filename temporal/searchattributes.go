package temporal

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// EnsureSearchAttributes registers, on namespace, each attribute in attrs that
// the namespace lacks, on any Temporal server (`hub migrate` calls it). It is
// idempotent, also against a concurrent caller. An attribute registered with a
// different type is an error: Temporal cannot change it, so an operator must.
//
// The frontend refuses new attributes until its namespace cache picks them up
// (a few seconds), so when it added any it waits (up to 15 s) until the
// frontend accepts a query on them; other frontends may lag by that interval.
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string, attrs map[string]enumspb.IndexedValueType) error {
	if len(attrs) == 0 {
		return nil
	}
	for {
		missing, err := missingSearchAttributes(ctx, c, namespace, attrs)
		if err != nil || len(missing) == 0 {
			return err
		}
		add := make(map[string]enumspb.IndexedValueType, len(missing))
		for _, name := range missing {
			add[name] = attrs[name]
		}
		_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
			Namespace:        namespace,
			SearchAttributes: add,
		})
		var exists *serviceerror.AlreadyExists
		if errors.As(err, &exists) {
			continue // someone else registered some meanwhile: list and add again
		}
		if err != nil {
			return fmt.Errorf("add search attributes %s to namespace %s: %w", strings.Join(missing, ", "), namespace, err)
		}
		return waitSearchAttributesUsable(ctx, c, namespace, missing)
	}
}

// missingSearchAttributes lists the namespace's attributes and returns the
// names in attrs it lacks, sorted, or an error naming every attribute whose
// registered type differs.
func missingSearchAttributes(ctx context.Context, c client.Client, namespace string, attrs map[string]enumspb.IndexedValueType) ([]string, error) {
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return nil, fmt.Errorf("list search attributes of namespace %s: %w", namespace, err)
	}
	var missing, conflicts []string
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		want := attrs[name]
		have, ok := resp.GetCustomAttributes()[name]
		if !ok {
			have, ok = resp.GetSystemAttributes()[name]
		}
		switch {
		case !ok:
			missing = append(missing, name)
		case have != want:
			conflicts = append(conflicts, fmt.Sprintf("%s is %s, want %s", name, have, want))
		}
	}
	if len(conflicts) > 0 {
		return nil, fmt.Errorf("search attributes of namespace %s have other types: %s", namespace, strings.Join(conflicts, "; "))
	}
	return missing, nil
}

// waitSearchAttributesUsable waits until the frontend accepts a visibility
// query on each of names.
func waitSearchAttributesUsable(ctx context.Context, c client.Client, namespace string, names []string) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	query := strings.Join(names, ` = "" AND `) + ` = ""` // A = "" AND B = ""
	for {
		_, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: namespace, Query: query})
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("search attributes %s not usable on namespace %s: %w", strings.Join(names, ", "), namespace, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
