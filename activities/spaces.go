package activities

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/temporal"

	"hub/chat"
	"hub/toolrun"
	"hub/tools"
	"hub/workspace"
)

// turnSpaces returns the spaces a turn may act in that the person can
// still open: its conversation's first, then the others, in order.
func (a *Activities) turnSpaces(ctx context.Context, turn chat.Turn) ([]workspace.Space, error) {
	mine, err := a.Workspace.ListSpaces(ctx, turn.PersonID)
	if err != nil {
		return nil, err
	}
	var out []workspace.Space
	for _, id := range append([]string{turn.SpaceID}, turn.Spaces...) {
		if i := slices.IndexFunc(mine, func(s workspace.Space) bool { return s.ID == id }); i >= 0 {
			out = append(out, mine[i])
		}
	}
	return out, nil
}

// offerRole is the role a turn is offered tools for: the widest of its
// spaces'. Every call is still checked with its own space's role.
func offerRole(own workspace.Role, spaces []workspace.Space) workspace.Role {
	roles := []workspace.Role{own}
	for _, s := range spaces {
		roles = append(roles, s.Role)
	}
	return workspace.Widest(roles...)
}

// callSpace decides the space a call acts in and returns its arguments
// without the space argument: in a turn across spaces, the one it names
// (by id, or by name ignoring case) among all the turn was given, even one
// the person left (the access check then refuses); else the turn's own. A
// space the turn was not given is the call's error.
func (a *Activities) callSpace(ctx context.Context, turn chat.Turn, def *tools.Definition, arguments string) (string, string, *tools.Error, error) {
	if len(turn.Spaces) == 0 || def == nil || def.NoSpace {
		return turn.SpaceID, arguments, nil, nil
	}
	named, rest, terr := tools.TakeSpaceArg(arguments)
	if terr != nil || named == "" {
		return turn.SpaceID, rest, terr, nil
	}
	allowed := append([]string{turn.SpaceID}, turn.Spaces...)
	if slices.Contains(allowed, named) { // an id wins over another space's name
		return named, rest, nil, nil
	}
	names, err := a.Workspace.SpaceNames(ctx, allowed)
	if err != nil {
		return "", "", nil, err
	}
	var match []string
	for _, id := range allowed {
		if strings.EqualFold(named, names[id]) {
			match = append(match, id)
		}
	}
	switch len(match) {
	case 1:
		return match[0], rest, nil, nil
	case 0:
		spaces, err := a.turnSpaces(ctx, turn)
		if err != nil {
			return "", "", nil, err
		}
		// By name, never by id: the context lists them with their ids.
		list := make([]string, len(spaces))
		for i, s := range spaces {
			list[i] = "“" + s.Name + "”"
		}
		which := fmt.Sprintf("a space %q", named)
		if tools.IDPattern.MatchString(named) {
			which = "the space with the id given"
		}
		return "", "", &tools.Error{Code: tools.CodeInvalidPayload, Path: "/" + tools.SpaceArg,
			Message: fmt.Sprintf("this turn cannot act in %s; its spaces are %s", which, strings.Join(list, ", "))}, nil
	}
	return "", "", &tools.Error{Code: tools.CodeInvalidPayload, Path: "/" + tools.SpaceArg,
		Message: fmt.Sprintf("several of this turn's spaces are called %q; name one by its id", named)}, nil
}

// stillMember checks, at every model call, that the person can still open
// the conversation's space: a removed member's turn ends forbidden.
func (a *Activities) stillMember(ctx context.Context, turn chat.Turn) error {
	_, err := a.Workspace.Access(ctx, turn.PersonID, turn.SpaceID)
	if errors.Is(err, workspace.ErrNotFound) {
		return temporal.NewNonRetryableApplicationError(toolrun.LostAccess, ErrTypeForbidden, err)
	}
	return err
}
