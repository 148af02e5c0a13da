package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Limits of an ordered workflow: 2 to 12 write steps (docs/decisions.md,
// "Ordered workflows").
const (
	MinPlanSteps = 2
	MaxPlanSteps = 12
	// PlanTool is the tool's name.
	PlanTool = "hub_run_workflow"
)

// PlanStep is one ordered write: an id later steps refer to, a write
// tool and its input, where a value may be {"$ref": "<stepId>.<path>"}.
type PlanStep struct {
	ID    string          `json:"id" jsonschema:"minLength=1,maxLength=32" jsonschema_description:"A short name for this step (lower-case letters, digits, _), used by later steps' $ref."`
	Tool  string          `json:"tool" jsonschema_description:"The write tool this step runs, e.g. hub_create_project."`
	Input json.RawMessage `json:"input" jsonschema:"type=object" jsonschema_description:"The tool's input. A value may be {\"$ref\": \"<earlier step id>.<path>\"}, e.g. {\"$ref\": \"project.project.id\"} or {\"$ref\": \"tasks.tasks.0.id\"}."`
}

// PlanInput is hub_run_workflow's input. PlanHash is set by its
// prepare step and binds the held call to exactly these steps.
type PlanInput struct {
	Steps    []PlanStep `json:"steps" jsonschema:"minItems=2,maxItems=12" jsonschema_description:"2 to 12 ordered write steps; the complete list."`
	PlanHash string     `json:"planHash,omitempty" jsonschema_description:"Set by Hub; leave it out."`
}

var (
	refPath = regexp.MustCompile(`^([a-z][a-z0-9_]{0,31})\.([A-Za-z0-9_.]+)$`)
	stepID  = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
)

// PlanHash is the hash that binds a held workflow to its steps.
func PlanHash(steps []PlanStep) string {
	b, _ := json.Marshal(steps) // steps always encode
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// RunPlan makes hub_run_workflow: 2–12 ordered writes proposed under one
// Apply (CheckPlan refuses what cannot run). At Apply each step runs as its
// own durable unit (activities.ApplySteps); its run here only checks the plan.
func RunPlan(reg *Registry) *Definition {
	return Define(Spec{
		Name: PlanTool, Area: "workflows", IsWrite: true, Risk: RiskHigh, AlwaysHold: true, AreaOfSteps: true,
		Description: "Propose 2 to 12 ordered writes that depend on each other (e.g. create a project, then tasks in it), applied together with one Apply. Do the look-ups first; a later step's input may use {\"$ref\": \"<earlier step id>.<path>\"} to use an earlier step's result, such as project.project.id.",
	}, func(ctx context.Context, env Env, in PlanInput) (Result, error) {
		if err := CheckPlan(reg, in); err != nil {
			return Result{}, err
		}
		if in.PlanHash != PlanHash(in.Steps) {
			return Result{}, Errorf(CodeRefused, "this workflow changed after it was proposed; ask again")
		}
		return Result{Summary: fmt.Sprintf("Checked %d steps.", len(in.Steps))}, nil
	},
		Prepare(func(ctx context.Context, env Env, in PlanInput) (PlanInput, error) {
			if err := CheckPlan(reg, in); err != nil {
				return in, err
			}
			if err := CheckStepsAllowed(ctx, reg, env, in); err != nil {
				return in, err
			}
			in.PlanHash = PlanHash(in.Steps)
			return in, nil
		}),
		Preview(func(ctx context.Context, env Env, in PlanInput) (string, error) {
			lines := make([]string, len(in.Steps))
			for i := range in.Steps {
				lines[i] = fmt.Sprintf("%d. %s", i+1, stepPreview(ctx, reg, env, in.Steps, i))
			}
			return fmt.Sprintf("Run %d steps in order: ", len(in.Steps)) + strings.Join(lines, "; "), nil
		}),
	)
}

// stepPreview says in words what step i of a plan will do: its tool's own
// preview when its input uses no $ref and it can be made now; otherwise a
// readable one, each $ref named by its step ("the project made in step 1").
func stepPreview(ctx context.Context, reg *Registry, env Env, steps []PlanStep, i int) string {
	st := steps[i]
	var v any
	if err := json.Unmarshal(st.Input, &v); err != nil {
		return Action(st.Tool)
	}
	d, ok := reg.Get(st.Tool)
	if ok && !hasRef(v) {
		if p, err := d.Preview(ctx, env, st.Input); err == nil && p != "" {
			return strings.TrimSuffix(p, ".")
		}
	}
	return readable(st.Tool, v, knownIn(ctx, env, st.Input), func(ref string) string { return refWords(steps, ref) })
}

func hasRef(v any) bool {
	_, err := eachRef(v, "", func(any, string) (any, error) { return nil, errHasRef })
	return err != nil
}

var errHasRef = errors.New("the input has a $ref")

// eachRef replaces every {"$ref": …} in v with what fn makes of it, given
// its JSON pointer (v's is at); it stops at fn's first error.
func eachRef(v any, at string, fn func(ref any, at string) (any, error)) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"]; ok && len(x) == 1 {
			return fn(ref, at)
		}
		for k, e := range x {
			r, err := eachRef(e, at+"/"+escapePointer(k), fn)
			if err != nil {
				return nil, err
			}
			x[k] = r
		}
	case []any:
		for i, e := range x {
			r, err := eachRef(e, at+"/"+strconv.Itoa(i), fn)
			if err != nil {
				return nil, err
			}
			x[i] = r
		}
	}
	return v, nil
}

// refWords names a $ref for people: "tasks.tasks.0.id" of step 2 is "task
// 1 made in step 2", "project.project.name" of step 1 "the name of the
// project made in step 1".
func refWords(steps []PlanStep, ref string) string {
	m := refPath.FindStringSubmatch(ref)
	n := 0
	for i, st := range steps {
		if m != nil && st.ID == m[1] {
			n = i + 1
		}
	}
	if n == 0 {
		return "an earlier step's result"
	}
	segs := strings.Split(m[2], ".")
	field := ""
	if last := segs[len(segs)-1]; last == "id" || last == "ids" {
		segs = segs[:len(segs)-1]
	} else if _, err := strconv.Atoi(last); err != nil && len(segs) > 1 {
		field, segs = fieldName(last), segs[:len(segs)-1]
	}
	noun, idx := "", -1
	for _, s := range segs {
		if k, err := strconv.Atoi(s); err == nil {
			idx = k
		} else {
			noun = s
		}
	}
	switch {
	case noun == "people":
		noun = "person"
	case noun == "":
		noun = "result"
	case len(noun) > 3 && strings.HasSuffix(noun, "s"):
		noun = strings.TrimSuffix(noun, "s")
	}
	words := fmt.Sprintf("the %s made in step %d", fieldName(noun), n)
	if idx >= 0 {
		words = fmt.Sprintf("%s %d made in step %d", fieldName(noun), idx+1, n)
	}
	if field != "" {
		words = "the " + field + " of " + words
	}
	return words
}

// CheckPlan refuses what cannot run as a workflow, naming the step and the
// path: reads are done before proposing, and $refs point backward only.
func CheckPlan(reg *Registry, in PlanInput) error {
	if n := len(in.Steps); n < MinPlanSteps || n > MaxPlanSteps {
		return &Error{Code: CodeInvalidPayload, Path: "/steps", Message: fmt.Sprintf("a workflow has 2 to 12 steps, not %d", n)}
	}
	seen := map[string]bool{}
	for i, st := range in.Steps {
		at := fmt.Sprintf("/steps/%d", i)
		if !stepID.MatchString(st.ID) {
			return &Error{Code: CodeInvalidPayload, Path: at + "/id", Message: fmt.Sprintf("a step id is lower-case letters, digits and _, starting with a letter, not %q", st.ID)}
		}
		if seen[st.ID] {
			return &Error{Code: CodeInvalidPayload, Path: at + "/id", Message: fmt.Sprintf("step id %q is used twice", st.ID)}
		}
		d, ok := reg.Get(st.Tool)
		switch {
		case st.Tool == PlanTool:
			return &Error{Code: CodeRefused, Path: at + "/tool", Message: fmt.Sprintf("step %q: workflows cannot be nested", st.ID)}
		case !ok:
			return &Error{Code: CodeUnknownTool, Path: at + "/tool", Message: fmt.Sprintf("step %q: no tool called %q", st.ID, st.Tool)}
		case !d.IsWrite:
			return &Error{Code: CodeRefused, Path: at + "/tool", Message: fmt.Sprintf("step %q: %s is a read; do reads before proposing, and use their results", st.ID, st.Tool)}
		}
		var v any
		if err := json.Unmarshal(st.Input, &v); err != nil {
			return &Error{Code: CodeInvalidPayload, Path: at + "/input", Message: fmt.Sprintf("step %q: the input is not valid JSON", st.ID)}
		}
		if _, err := eachRef(v, at+"/input", func(ref any, at string) (any, error) {
			s, _ := ref.(string)
			switch m := refPath.FindStringSubmatch(s); {
			case m == nil:
				return nil, &Error{Code: CodeInvalidPayload, Path: at, Message: fmt.Sprintf("step %q: a $ref is \"<step id>.<path>\", not %q", st.ID, s)}
			case !seen[m[1]]:
				return nil, &Error{Code: CodeInvalidPayload, Path: at, Message: fmt.Sprintf("step %q: $ref %q points to no earlier step (refs point backward only)", st.ID, s)}
			}
			return ref, nil
		}); err != nil {
			return err
		}
		seen[st.ID] = true
	}
	return nil
}

// CheckStepsAllowed refuses a plan with a step the person may not use where
// the call acts (Registry.Permits), so a workflow never holds a write Apply
// would refuse. Run it after CheckPlan.
func CheckStepsAllowed(ctx context.Context, reg *Registry, env Env, in PlanInput) error {
	for i, st := range in.Steps {
		d, ok := reg.Get(st.Tool)
		if !ok {
			continue // CheckPlan refuses it
		}
		if terr := reg.Permits(ctx, env, d); terr != nil {
			return &Error{Code: terr.Code, Path: fmt.Sprintf("/steps/%d/tool", i),
				Message: fmt.Sprintf("step %q (%s): %s", st.ID, st.Tool, terr.Message)}
		}
	}
	return nil
}

// ResolveRefs replaces every {"$ref": "step.path"} in a step's input with
// the value at that path of the earlier step's output.
func ResolveRefs(input json.RawMessage, outputs map[string]json.RawMessage) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return nil, err
	}
	v, err := eachRef(v, "", func(ref any, _ string) (any, error) {
		s, _ := ref.(string)
		m := refPath.FindStringSubmatch(s)
		if m == nil {
			return nil, Errorf(CodeInvalidPayload, "a $ref is \"<step id>.<path>\", not %q", s)
		}
		out, ok := outputs[m[1]]
		if !ok {
			return nil, Errorf(CodeInvalidPayload, "$ref %q: step %q has no result", s, m[1])
		}
		var cur any
		if err := json.Unmarshal(out, &cur); err != nil {
			return nil, err
		}
		for _, part := range strings.Split(m[2], ".") {
			switch c := cur.(type) {
			case map[string]any:
				cur = c[part]
			case []any:
				i, err := strconv.Atoi(part)
				if err != nil || i < 0 || i >= len(c) {
					return nil, Errorf(CodeInvalidPayload, "$ref %q: no item %q", s, part)
				}
				cur = c[i]
			default:
				cur = nil
			}
			if cur == nil {
				return nil, Errorf(CodeInvalidPayload, "$ref %q: the result has nothing at %q", s, part)
			}
		}
		return cur, nil
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
