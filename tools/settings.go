package tools

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"hub/workspace"
)

// UpdateSettingsTool is hub_update_settings's name.
const UpdateSettingsTool = "hub_update_settings"

// UpdateSettingsInput is hub_update_settings's input: the allowlist of
// settings the assistant may change. Secrets, roles and connections stay the
// person's own actions (the schema allows no other property).
type UpdateSettingsInput struct {
	WritePolicy string  `json:"writePolicy,omitempty" jsonschema:"enum=immediate,enum=preview,enum=needs-me" jsonschema_description:"When your writes run: at once, held for Apply in the chat, or on the Needs me list."`
	Model       *string `json:"model,omitempty" jsonschema:"maxLength=200" jsonschema_description:"Default model id; \"\" for Hub's default."`
	Effort      *string `json:"effort,omitempty" jsonschema:"maxLength=20" jsonschema_description:"Default reasoning effort the model takes (low, medium, …); \"\" for none."`
}

func (in UpdateSettingsInput) patch() (workspace.SettingsPatch, error) {
	p := workspace.SettingsPatch{WritePolicy: nonZero(in.WritePolicy), Model: in.Model, Effort: in.Effort}
	if p.WritePolicy == nil && p.Model == nil && p.Effort == nil {
		return p, &Error{Code: CodeInvalidPayload, Message: "name at least one setting to change: writePolicy, model or effort"}
	}
	return p, nil
}

// describe says the change in words, for the preview and the summary.
func (in UpdateSettingsInput) describe() string {
	parts := appendIf(nil, in.WritePolicy != "", "write policy "+in.WritePolicy)
	if in.Model != nil {
		parts = append(parts, "default model "+cmp.Or(strings.TrimSpace(*in.Model), "the Hub's default"))
	}
	if in.Effort != nil {
		parts = append(parts, "default effort "+cmp.Or(strings.TrimSpace(*in.Effort), "none"))
	}
	return strings.Join(parts, ", ")
}

// UpdateSettings is hub_update_settings: changes the person's own
// assistant settings, checked as PATCH /api/me/settings checks them. It is
// always held for Apply: a turn must not loosen its own policy unseen.
var UpdateSettings = Define(Spec{
	Name: UpdateSettingsTool, Area: "settings", IsWrite: true, Risk: RiskMedium, AlwaysHold: true, Personal: true, NoSpace: true,
	Description: "Change the person's assistant settings: write policy, default model, reasoning effort. Only fields given change; always waits for Apply. Secrets, roles and connected apps are the person's to change in Hub.",
}, func(ctx context.Context, env Env, in UpdateSettingsInput) (Result, error) {
	p, err := in.patch()
	if err != nil {
		return Result{}, err
	}
	st, err := env.Workspace.UpdateSettings(ctx, env.Actor.PersonID, p)
	if err != nil {
		return Result{}, err
	}
	data := struct {
		WritePolicy string `json:"writePolicy"`
		Model       string `json:"model"`
		Effort      string `json:"effort"`
	}{st.WritePolicy, st.Model, st.Effort}
	return Result{Summary: fmt.Sprintf("Changed your assistant settings: %s.", in.describe()), Data: data}, nil
}, Preview(func(ctx context.Context, env Env, in UpdateSettingsInput) (string, error) {
	p, err := in.patch()
	if err != nil {
		return "", err
	}
	// Checked now, so a refused model is the model's to correct, not a
	// failure at Apply.
	if err := env.Workspace.CheckSettingsPatch(ctx, env.Actor.PersonID, p); err != nil {
		return "", err
	}
	return fmt.Sprintf("Change your assistant settings: %s.", in.describe()), nil
}))
