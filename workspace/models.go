package workspace

import (
	"context"
)

// ModelCatalog is what a chosen model and effort are checked against: the
// operator's catalog (llm.Catalog). The workspace only keeps the choice.
type ModelCatalog interface {
	// CheckChoice names the field at fault ("model" or "effort") and why,
	// or "" when the choice is allowed; an empty model is the default.
	CheckChoice(model, effort string) (field, problem string)
	// DefaultModel is the id of the catalog's default model.
	DefaultModel() string
	// TierModel is the id of the model of tier a message runs (preferred
	// when it is of the tier), or why there is none.
	TierModel(tier, preferred string) (id, problem string)
}

// SetModels gives the service the operator's catalog. Without one, any
// model or effort chosen is refused and turns run the configured model.
func (s *Service) SetModels(c ModelCatalog) { s.shared.catalog = c }

// CheckModelChoice checks a model and effort a person chose: an unknown
// model is invalid at /model, an effort that model does not take at
// /effort (prefix comes before both, "" at the top level).
func (s *Service) CheckModelChoice(prefix, model, effort string) error {
	if model == "" && effort == "" {
		return nil
	}
	c := s.shared.catalog
	if c == nil {
		field := "/effort"
		if model != "" {
			field = "/model"
		}
		return invalid(prefix+field, "this Hub has no model catalog to choose from")
	}
	if field, problem := c.CheckChoice(model, effort); field != "" {
		return invalid(prefix+"/"+field, "%s", problem)
	}
	return nil
}

// TierModel is the catalog model a message that asks for tier runs: the
// person's default model when it is of that tier, else the tier's first.
// An unknown tier is invalid at /tier.
func (s *Service) TierModel(ctx context.Context, personID, tier string) (string, error) {
	c := s.shared.catalog
	if c == nil {
		return "", invalid("/tier", "this Hub has no model catalog to choose from")
	}
	st, err := s.GetSettings(ctx, personID)
	if err != nil {
		return "", err
	}
	id, problem := c.TierModel(tier, st.Model)
	if problem != "" {
		return "", invalid("/tier", "%s", problem)
	}
	return id, nil
}

// TurnModel decides the model and effort of the person's turn, checking what
// it named first: its model, else the person's default while the catalog
// holds it, else the catalog's; with no effort named, the settings' effort
// if the model takes it.
func (s *Service) TurnModel(ctx context.Context, personID, model, effort string) (string, string, error) {
	c := s.shared.catalog
	if c == nil {
		return model, effort, s.CheckModelChoice("", model, effort)
	}
	if model != "" {
		if err := s.CheckModelChoice("", model, ""); err != nil {
			return "", "", err
		}
	}
	st, err := s.GetSettings(ctx, personID)
	if err != nil {
		return "", "", err
	}
	if model == "" {
		model = c.DefaultModel()
		if field, _ := c.CheckChoice(st.Model, ""); st.Model != "" && field == "" {
			model = st.Model
		}
	}
	if effort != "" {
		return model, effort, s.CheckModelChoice("", model, effort)
	}
	if field, _ := c.CheckChoice(model, st.Effort); field == "" {
		effort = st.Effort
	}
	return model, effort, nil
}
