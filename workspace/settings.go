package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hub/storage"
)

// Write policies: when the assistant's writes to Hub records run.
const (
	// PolicyImmediate runs writes at once, each with an Undo entry (default).
	PolicyImmediate = "immediate"
	// PolicyPreview holds writes for the person's Apply in the chat.
	PolicyPreview = "preview"
	// PolicyNeedsMe holds writes on the person's Needs me list.
	PolicyNeedsMe = "needs-me"
)

// Settings are a person's assistant settings.
type Settings struct {
	WritePolicy string
	// AllowedWriteAreas limits the areas (WriteAreas) the assistant may write
	// in; empty allows every area.
	AllowedWriteAreas []string
	// ConnectedAppWrites lets the assistant propose writes in connected apps
	// (they always wait for Apply).
	ConnectedAppWrites bool
	// Model and Effort are the person's default model and reasoning effort
	// for turns that name none; "" is the catalog's default (TurnModel).
	Model  string
	Effort string
}

// AllowsArea tells whether the assistant may write in the area.
func (s Settings) AllowsArea(area string) bool {
	if len(s.AllowedWriteAreas) == 0 {
		return true
	}
	return slices.Contains(s.AllowedWriteAreas, area)
}

// WriteAreas are the areas AllowedWriteAreas may name: the assistant's
// write tools each belong to one ("apps" is connected apps).
var WriteAreas = []string{"tasks", "projects", "apps"}

// SettingsPatch changes the settings that are set. AllowedWriteAreas set to
// an empty list allows every area again.
type SettingsPatch struct {
	WritePolicy        *string
	AllowedWriteAreas  *[]string
	ConnectedAppWrites *bool
	// Model and Effort are checked against the catalog; "" goes back to the
	// default.
	Model  *string
	Effort *string
}

func toSettings(r storage.Setting) (Settings, error) {
	st := Settings{WritePolicy: r.WritePolicy, ConnectedAppWrites: r.ConnectedAppWrites, Model: r.Model, Effort: r.Effort}
	if r.AllowedWriteAreas != "" {
		if err := json.Unmarshal([]byte(r.AllowedWriteAreas), &st.AllowedWriteAreas); err != nil {
			return Settings{}, fmt.Errorf("settings of %s: allowed write areas: %w", r.PersonID, err)
		}
	}
	if len(st.AllowedWriteAreas) == 0 {
		st.AllowedWriteAreas = nil
	}
	return st, nil
}

// GetSettings returns the person's settings, defaults where none are saved.
func (s *Service) GetSettings(ctx context.Context, personID string) (Settings, error) {
	var r storage.Setting
	err := s.q(ctx).Take(&r, "person_id = ?", personID).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Settings{WritePolicy: PolicyImmediate}, nil
	}
	if err != nil {
		return Settings{}, fmt.Errorf("get settings: %w", err)
	}
	return toSettings(r)
}

// CheckSettingsPatch checks a patch as UpdateSettings would, saving
// nothing (a held hub_update_settings, before it waits for Apply).
func (s *Service) CheckSettingsPatch(ctx context.Context, personID string, p SettingsPatch) error {
	_, err := s.patchedSettings(ctx, personID, p)
	return err
}

// patchedSettings are the saved settings with the patch checked and applied.
func (s *Service) patchedSettings(ctx context.Context, personID string, p SettingsPatch) (Settings, error) {
	cur, err := s.GetSettings(ctx, personID) // what is saved now, not an activity's earlier read
	if err != nil {
		return Settings{}, err
	}
	if p.WritePolicy != nil {
		if !slices.Contains([]string{PolicyImmediate, PolicyPreview, PolicyNeedsMe}, *p.WritePolicy) {
			return Settings{}, invalid("/writePolicy", "writePolicy must be immediate, preview or needs-me")
		}
		cur.WritePolicy = *p.WritePolicy
	}
	if p.AllowedWriteAreas != nil {
		// Each area once, in the order given; an empty list allows all.
		var areas []string
		for i, a := range *p.AllowedWriteAreas {
			if !slices.Contains(WriteAreas, a) {
				return Settings{}, invalid(fmt.Sprintf("/allowedWriteAreas/%d", i),
					"a write area is one of %s, not %q", strings.Join(WriteAreas, ", "), a)
			}
			if !slices.Contains(areas, a) {
				areas = append(areas, a)
			}
		}
		cur.AllowedWriteAreas = areas
	}
	if p.ConnectedAppWrites != nil {
		cur.ConnectedAppWrites = *p.ConnectedAppWrites
	}
	if err := s.patchModel(&cur, p); err != nil {
		return Settings{}, err
	}
	return cur, nil
}

// UpdateSettings saves the set fields and returns the settings.
func (s *Service) UpdateSettings(ctx context.Context, personID string, p SettingsPatch) (Settings, error) {
	cur, err := s.patchedSettings(ctx, personID, p)
	if err != nil {
		return Settings{}, err
	}
	rawAreas, err := json.Marshal(append([]string{}, cur.AllowedWriteAreas...)) // [], never null
	if err != nil {
		return Settings{}, fmt.Errorf("update settings: %w", err)
	}
	row := storage.Setting{PersonID: personID, WritePolicy: cur.WritePolicy, AllowedWriteAreas: string(rawAreas),
		ConnectedAppWrites: cur.ConnectedAppWrites, Model: cur.Model, Effort: cur.Effort, UpdatedAt: s.now()}
	if err := s.q(ctx).Clauses(clause.OnConflict{UpdateAll: true}).Create(&row).Error; err != nil {
		return Settings{}, fmt.Errorf("update settings: %w", err)
	}
	return cur, nil
}

// patchModel applies a patch's model and effort, checked against the
// catalog. A new model alone keeps the saved effort only if it takes it.
func (s *Service) patchModel(cur *Settings, p SettingsPatch) error {
	if p.Model == nil && p.Effort == nil {
		return nil
	}
	model, effort := cur.Model, cur.Effort
	if c := s.shared.catalog; c != nil && model != "" {
		if field, _ := c.CheckChoice(model, ""); field != "" {
			model = "" // removed from the catalog since: the default now
		}
	}
	if p.Model != nil {
		model = strings.TrimSpace(*p.Model)
		if err := s.CheckModelChoice("", model, ""); err != nil {
			return err
		}
	}
	if p.Effort != nil {
		effort = strings.TrimSpace(*p.Effort)
		if err := s.CheckModelChoice("", model, effort); err != nil {
			return err
		}
	} else if c := s.shared.catalog; c != nil {
		if field, _ := c.CheckChoice(model, effort); field != "" {
			effort = ""
		}
	}
	cur.Model, cur.Effort = model, effort
	return nil
}
