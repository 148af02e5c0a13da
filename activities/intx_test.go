package activities

import (
	"context"
	"reflect"
	"testing"

	"hub/assistant"
	"hub/llm"
	"hub/workspace"
)

type stubModel struct{}

func (stubModel) Stream(context.Context, llm.Request, func(llm.Chunk) error) (llm.Result, error) {
	return llm.Result{}, nil
}
func (stubModel) Model() string { return "stub" }

// TestBoundToCopiesEveryDependency: a copy of the activities bound to a
// transaction (inOneTx) has every dependency of the original — a field
// added to Activities and forgotten in boundTo would be missing in every
// activity that runs in one transaction — and shares its transcripts.
func TestBoundToCopiesEveryDependency(t *testing.T) {
	a := &Activities{Model: stubModel{}, Verifier: assistant.VerifierFunc(func(context.Context, assistant.VerifyInput) (string, error) { return "", nil })}
	v := reflect.ValueOf(a).Elem()
	deps := func(yield func(string, reflect.Value) bool) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			// Workspace is the transaction's (below).
			if f.IsExported() && f.Name != "Workspace" && !yield(f.Name, v.Field(i)) {
				return
			}
		}
	}
	for name, fv := range deps {
		switch fv.Kind() {
		case reflect.Bool:
			fv.SetBool(true)
		case reflect.Int, reflect.Int64:
			fv.SetInt(7)
		case reflect.Pointer:
			fv.Set(reflect.New(fv.Type().Elem()))
		case reflect.Slice:
			fv.Set(reflect.MakeSlice(fv.Type(), 1, 1))
		case reflect.Func:
			fv.Set(reflect.MakeFunc(fv.Type(), func([]reflect.Value) []reflect.Value {
				out := make([]reflect.Value, fv.Type().NumOut())
				for j := range out {
					out[j] = reflect.Zero(fv.Type().Out(j))
				}
				return out
			}))
		}
		if fv.IsZero() {
			t.Fatalf("the test sets no value for %s", name)
		}
	}
	b := reflect.ValueOf(a.boundTo(&workspace.Service{})).Elem()
	for name, x := range deps {
		y := b.FieldByName(name)
		same := reflect.DeepEqual(x.Interface(), y.Interface())
		if x.Kind() == reflect.Interface && x.Elem().Kind() == reflect.Func {
			x, y = x.Elem(), y.Elem()
		}
		if x.Kind() == reflect.Func || x.Kind() == reflect.Slice {
			same = y.IsValid() && x.Pointer() == y.Pointer()
		}
		if !same {
			t.Errorf("boundTo does not copy %s", name)
		}
	}
	if bound := a.boundTo(&workspace.Service{}); bound.cache() != a.cache() {
		t.Error("the bound copy keeps transcripts of its own")
	}
}
