package tools

import (
	"context"
	"errors"
	"fmt"

	"hub/workspace"
)

// ReadSkillTool is hub_read_skill's name.
const ReadSkillTool = "hub_read_skill"

// ReadSkillInput is hub_read_skill's input.
type ReadSkillInput struct {
	ID string `json:"id" jsonschema:"minLength=1,maxLength=100" jsonschema_description:"The skill's id, as the instructions list it."`
}

// SkillData is a skill as hub_read_skill returns it.
type SkillData struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Instructions string `json:"instructions"`
}

// ReadSkill is hub_read_skill: one of the person's own skills the
// instructions list; one switched off or kept for a purpose is not found.
var ReadSkill = Define(Spec{
	Name: ReadSkillTool, Area: "skills", NoSpace: true,
	Description: "Read one of the person's own skills (their saved instructions for a kind of request) by its id from the list in your instructions. Read it when a skill's description fits the request, then follow it.",
}, func(ctx context.Context, env Env, in ReadSkillInput) (Result, error) {
	k, err := env.Workspace.GetSkill(ctx, env.Actor.PersonID, in.ID)
	if err == nil && (!k.Enabled || k.Purpose != "") {
		err = workspace.ErrNotFound
	}
	if errors.Is(err, workspace.ErrNotFound) {
		return Result{}, &Error{Code: CodeNotFound, Path: "/id",
			Message: "there is no enabled skill with this id; use an id from the skills listed in your instructions"}
	}
	if err != nil {
		return Result{}, err
	}
	data := struct {
		Skill SkillData `json:"skill"`
	}{Skill: SkillData{ID: k.ID, Name: k.Name, Description: k.Description, Instructions: k.Instructions}}
	return Result{Summary: fmt.Sprintf("Read the skill “%s”.", k.Name), Data: data, Refs: []workspace.Ref{k.Ref()}}, nil
})
