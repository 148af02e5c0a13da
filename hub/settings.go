package hub

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hub/models"
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
	// AllowedWriteAreas limits the areas ("tasks", "projects", "apps", …)
	// the assistant may write in; empty allows every area.
	AllowedWriteAreas []string
	// ConnectedAppWrites lets the assistant propose writes in connected apps
	// (they always wait for Apply). Off by default.
	ConnectedAppWrites bool
}

// AllowsArea tells whether the assistant may write in the area.
func (s Settings) AllowsArea(area string) bool {
	if len(s.AllowedWriteAreas) == 0 {
		return true
	}
	return oneOf(area, s.AllowedWriteAreas)
}

// SettingsPatch changes the settings that are set.
type SettingsPatch struct {
	WritePolicy *string
}

// GetSettings returns the person's settings, defaults where none are saved.
func (s *Service) GetSettings(ctx context.Context, personID string) (Settings, error) {
	var r models.Setting
	err := s.q(ctx).Take(&r, "person_id = ?", personID).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Settings{WritePolicy: PolicyImmediate}, nil
	}
	if err != nil {
		return Settings{}, fmt.Errorf("get settings: %w", err)
	}
	return Settings{WritePolicy: r.WritePolicy}, nil
}

// UpdateSettings saves the set fields and returns the settings.
func (s *Service) UpdateSettings(ctx context.Context, personID string, p SettingsPatch) (Settings, error) {
	cur, err := s.GetSettings(ctx, personID)
	if err != nil {
		return Settings{}, err
	}
	if p.WritePolicy != nil {
		if !oneOf(*p.WritePolicy, []string{PolicyImmediate, PolicyPreview, PolicyNeedsMe}) {
			return Settings{}, invalid("/writePolicy", "writePolicy must be immediate, preview or needs-me")
		}
		cur.WritePolicy = *p.WritePolicy
	}
	row := models.Setting{PersonID: personID, WritePolicy: cur.WritePolicy, UpdatedAt: s.now()}
	if err := s.q(ctx).Clauses(clause.OnConflict{UpdateAll: true}).Create(&row).Error; err != nil {
		return Settings{}, fmt.Errorf("update settings: %w", err)
	}
	return cur, nil
}
