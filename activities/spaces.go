package activities

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"hub/chat"
	"hub/hub"
	"hub/tools"
)

// turnSpaces returns the spaces a turn may act in that the person can
// still open: its conversation's first, then the others it was started
// with, in that order. A space the person left since is not listed.
func (a *Activities) turnSpaces(ctx context.Context, turn chat.Turn) ([]hub.Space, error) {
	mine, err := a.Hub.ListSpaces(ctx, turn.PersonID)
	if err != nil {
		return nil, err
	}
	var out []hub.Space
	for _, id := range append([]string{turn.SpaceID}, turn.Spaces...) {
		if i := slices.IndexFunc(mine, func(s hub.Space) bool { return s.ID == id }); i >= 0 {
			out = append(out, mine[i])
		}
	}
	return out, nil
}

// offerRole is the role a turn is offered tools for: its space's (own), or
// in a turn that acts in several spaces the widest of theirs (a viewer here
// may be an editor there). Every call is still checked with the role of the
// space it acts in.
func offerRole(own hub.Role, spaces []hub.Space) hub.Role {
	roles := []hub.Role{own}
	for _, s := range spaces {
		roles = append(roles, s.Role)
	}
	return hub.Widest(roles...)
}

// callSpace decides the space a call acts in and returns its arguments
// without the space argument: in a turn that may act in several spaces, the
// space the call names (by id, or by name ignoring case) among the turn's;
// otherwise, or when it names none, the turn's own. A space the turn was
// not given is the call's error, never a reason to look further.
func (a *Activities) callSpace(ctx context.Context, turn chat.Turn, def *tools.Definition, arguments string) (string, string, *tools.Error, error) {
	if len(turn.Spaces) == 0 || def == nil || def.NoSpace {
		return turn.SpaceID, arguments, nil, nil
	}
	named, rest, terr := tools.TakeSpaceArg(arguments)
	if terr != nil || named == "" {
		return turn.SpaceID, rest, terr, nil
	}
	allowed := append([]string{turn.SpaceID}, turn.Spaces...)
	spaces, err := a.turnSpaces(ctx, turn)
	if err != nil {
		return "", "", nil, err
	}
	if slices.Contains(allowed, named) {
		if !slices.ContainsFunc(spaces, func(s hub.Space) bool { return s.ID == named }) {
			return "", "", tools.Errorf(tools.CodeForbidden, "you can no longer open this space"), nil
		}
		return named, rest, nil, nil
	}
	var match []hub.Space
	for _, s := range spaces {
		if strings.EqualFold(strings.TrimSpace(named), s.Name) {
			match = append(match, s)
		}
	}
	switch len(match) {
	case 1:
		return match[0].ID, rest, nil, nil
	case 0:
		names := make([]string, len(spaces))
		for i, s := range spaces {
			names[i] = fmt.Sprintf("%s (%s)", s.Name, s.ID)
		}
		return "", "", &tools.Error{Code: tools.CodeInvalidPayload, Path: "/" + tools.SpaceArg,
			Message: fmt.Sprintf("this turn cannot act in a space %q; its spaces are %s", named, strings.Join(names, ", "))}, nil
	}
	return "", "", &tools.Error{Code: tools.CodeInvalidPayload, Path: "/" + tools.SpaceArg,
		Message: fmt.Sprintf("several of this turn's spaces are called %q; name one by its id", named)}, nil
}
