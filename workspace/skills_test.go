package workspace_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

func TestSkillsCRUDWithVersions(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		me := f.editor.PersonID
		report, err := f.svc.CreateSkill(ctx, me, workspace.NewSkill{Name: " Weekly report ",
			Description: "How I write the Friday status report", Instructions: "Three bullets: done, next, blocked."})
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(report.ID, "skill"), report.ID)
		require.Equal(t, "Weekly report", report.Name, "trimmed")
		require.True(t, report.Enabled, "enabled by default")
		require.Equal(t, 1, report.Version)
		off, err := f.svc.CreateSkill(ctx, me, workspace.NewSkill{Name: "archive", Description: "d", Instructions: "i", Enabled: ptr(false)})
		require.NoError(t, err)
		require.False(t, off.Enabled)
		brief, err := f.svc.CreateSkill(ctx, me, workspace.NewSkill{Name: "Brief", Description: "d", Instructions: "i", Purpose: "morning-brief"})
		require.NoError(t, err)

		list, err := f.svc.ListSkills(ctx, me)
		require.NoError(t, err)
		require.Equal(t, []string{"archive", "Brief", "Weekly report"}, skillNames(list), "by name, whatever the case")
		listed, err := f.svc.InstructionSkills(ctx, me)
		require.NoError(t, err)
		require.Equal(t, []string{"Weekly report"}, skillNames(listed), "enabled and without a purpose only")
		_ = brief

		got, err := f.svc.GetSkill(ctx, me, report.ID)
		require.NoError(t, err)
		require.Equal(t, untimed(report), untimed(got))

		// A change names the version it was made against.
		v1 := 1
		up, err := f.svc.UpdateSkill(ctx, me, report.ID, workspace.SkillPatch{Version: &v1, Instructions: ptr("Four bullets.")})
		require.NoError(t, err)
		require.Equal(t, 2, up.Version)
		require.Equal(t, "Four bullets.", up.Instructions)
		require.Equal(t, "Weekly report", up.Name, "a patch keeps what it does not set")
		_, err = f.svc.UpdateSkill(ctx, me, report.ID, workspace.SkillPatch{Version: &v1, Name: ptr("Old edit")})
		require.ErrorIs(t, err, workspace.ErrStale)
		require.ErrorContains(t, err, `skill "Weekly report" is at version 2, not 1`)
		_, err = f.svc.UpdateSkill(ctx, me, report.ID, workspace.SkillPatch{Name: ptr("No version")})
		requireInvalid(t, err, "/version")
		got, err = f.svc.GetSkill(ctx, me, report.ID)
		require.NoError(t, err)
		require.Equal(t, untimed(up), untimed(got), "nothing changed by the refused edits")

		// Names are the person's own and unique whatever their case.
		_, err = f.svc.CreateSkill(ctx, me, workspace.NewSkill{Name: "WEEKLY REPORT", Description: "d", Instructions: "i"})
		require.ErrorIs(t, err, workspace.ErrConflict)
		v2 := 2
		_, err = f.svc.UpdateSkill(ctx, me, report.ID, workspace.SkillPatch{Version: &v2, Name: ptr("Archive")})
		require.ErrorIs(t, err, workspace.ErrConflict)
		_, err = f.svc.CreateSkill(ctx, f.owner.PersonID, workspace.NewSkill{Name: "Weekly report", Description: "d", Instructions: "i"})
		require.NoError(t, err, "another person may use the same name")

		// Delete, with a version when given.
		require.ErrorIs(t, f.svc.DeleteSkill(ctx, me, report.ID, &v1), workspace.ErrStale)
		require.NoError(t, f.svc.DeleteSkill(ctx, me, report.ID, &v2))
		_, err = f.svc.GetSkill(ctx, me, report.ID)
		require.ErrorIs(t, err, workspace.ErrNotFound)
		require.ErrorIs(t, f.svc.DeleteSkill(ctx, me, report.ID, nil), workspace.ErrNotFound)
	})
}

func TestSkillsAreTheirOwnersOnly(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		mine, err := f.svc.CreateSkill(ctx, f.owner.PersonID, workspace.NewSkill{Name: "Mine", Description: "d", Instructions: "secret way"})
		require.NoError(t, err)
		other := f.editor.PersonID // same space, another person
		_, err = f.svc.GetSkill(ctx, other, mine.ID)
		require.ErrorIs(t, err, workspace.ErrNotFound)
		require.ErrorContains(t, err, "you have no skill with this id")
		v := 1
		_, err = f.svc.UpdateSkill(ctx, other, mine.ID, workspace.SkillPatch{Version: &v, Name: ptr("Stolen")})
		require.ErrorIs(t, err, workspace.ErrNotFound)
		require.ErrorIs(t, f.svc.DeleteSkill(ctx, other, mine.ID, nil), workspace.ErrNotFound)
		list, err := f.svc.ListSkills(ctx, other)
		require.NoError(t, err)
		require.Empty(t, list)
		_, err = f.svc.GetSkill(ctx, f.owner.PersonID, "skill_nope")
		require.ErrorIs(t, err, workspace.ErrNotFound)
		_, err = f.svc.GetSkill(ctx, f.owner.PersonID, "bad\x00id")
		require.ErrorIs(t, err, workspace.ErrNotFound)
		got, err := f.svc.GetSkill(ctx, f.owner.PersonID, mine.ID)
		require.NoError(t, err)
		require.Equal(t, "Mine", got.Name, "untouched")
	})
}

func TestSkillLimits(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		me := f.viewer.PersonID // skills are the person's, whatever their role
		ok := workspace.NewSkill{Name: "n", Description: "d", Instructions: "i"}
		for _, tc := range []struct {
			edit func(*workspace.NewSkill)
			path string
		}{
			{func(s *workspace.NewSkill) { s.Name = "" }, "/name"},
			{func(s *workspace.NewSkill) { s.Name = strings.Repeat("n", workspace.MaxSkillName+1) }, "/name"},
			{func(s *workspace.NewSkill) { s.Name = "two\nlines" }, "/name"},
			{func(s *workspace.NewSkill) { s.Description = " " }, "/description"},
			{func(s *workspace.NewSkill) { s.Description = strings.Repeat("d", workspace.MaxSkillDescription+1) }, "/description"},
			{func(s *workspace.NewSkill) { s.Instructions = "" }, "/instructions"},
			{func(s *workspace.NewSkill) { s.Instructions = strings.Repeat("i", workspace.MaxSkillInstructions+1) }, "/instructions"},
			{func(s *workspace.NewSkill) { s.Instructions = "nul\x00" }, "/instructions"},
			{func(s *workspace.NewSkill) { s.Purpose = "Morning Brief" }, "/purpose"},
		} {
			in := ok
			tc.edit(&in)
			_, err := f.svc.CreateSkill(ctx, me, in)
			requireInvalid(t, err, tc.path)
		}
		// At the limits exactly is fine; multi-byte characters count once.
		_, err := f.svc.CreateSkill(ctx, me, workspace.NewSkill{Name: strings.Repeat("ü", workspace.MaxSkillName),
			Description: strings.Repeat("d", workspace.MaxSkillDescription), Instructions: strings.Repeat("i\n", workspace.MaxSkillInstructions/2)})
		require.NoError(t, err)
		list, err := f.svc.ListSkills(ctx, me)
		require.NoError(t, err)
		require.Len(t, list, 1, "nothing stored by the refused ones")
		v := 1
		_, err = f.svc.UpdateSkill(ctx, me, list[0].ID, workspace.SkillPatch{Version: &v, Description: ptr(strings.Repeat("d", workspace.MaxSkillDescription+1))})
		requireInvalid(t, err, "/description")
	})
}

func TestProfilePersonaAndFirstName(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		me := f.editor.PersonID
		p, err := f.svc.GetProfile(ctx, me)
		require.NoError(t, err)
		require.Equal(t, workspace.Profile{Name: "Eddie Editor"}, p)
		p, err = f.svc.UpdateProfile(ctx, me, workspace.ProfilePatch{Persona: ptr("  I work as a lawyer at Smith & Co. in Berlin. ")})
		require.NoError(t, err)
		require.Equal(t, "I work as a lawyer at Smith & Co. in Berlin.", p.Persona)
		person, err := f.svc.GetPerson(ctx, me)
		require.NoError(t, err)
		require.Equal(t, "I work as a lawyer at Smith & Co. in Berlin.", person.Persona)
		require.Equal(t, "Eddie", person.FirstName(), "the first word of the name")

		for _, bad := range []string{strings.Repeat("a", workspace.MaxPersona+1), "one line\nand another", "nul\x00"} {
			_, err = f.svc.UpdateProfile(ctx, me, workspace.ProfilePatch{Persona: &bad})
			requireInvalid(t, err, "/persona")
		}
		_, err = f.svc.UpdateProfile(ctx, me, workspace.ProfilePatch{FirstName: ptr("Ed Ward")})
		requireInvalid(t, err, "/firstName")
		p, err = f.svc.GetProfile(ctx, me)
		require.NoError(t, err)
		require.Equal(t, "I work as a lawyer at Smith & Co. in Berlin.", p.Persona, "nothing changed by refused patches")

		_, err = f.svc.UpdateProfile(ctx, me, workspace.ProfilePatch{FirstName: ptr("Ed")})
		require.NoError(t, err)
		person, err = f.svc.GetPerson(ctx, me)
		require.NoError(t, err)
		require.Equal(t, "Ed", person.FirstName(), "the first name they set")
		p, err = f.svc.UpdateProfile(ctx, me, workspace.ProfilePatch{Persona: ptr("")})
		require.NoError(t, err)
		require.Empty(t, p.Persona, "cleared")
		require.Equal(t, "Ed", p.FirstName, "a patch keeps what it does not set")

		other, err := f.svc.GetProfile(ctx, f.owner.PersonID)
		require.NoError(t, err)
		require.Empty(t, other.Persona, "a profile is the person's own")

		// A placeholder account name is no one's name.
		_, dev, err := f.svc.EnsureMember(ctx, "Demo", workspace.DevOwnerName, workspace.RoleOwner)
		require.NoError(t, err)
		person, err = f.svc.GetPerson(ctx, dev)
		require.NoError(t, err)
		require.Empty(t, person.FirstName())
	})
}

func skillNames(ks []workspace.Skill) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.Name
	}
	return out
}

// untimed leaves out the times, which each engine reads back in its own
// precision and zone.
func untimed(k workspace.Skill) workspace.Skill {
	k.CreatedAt, k.UpdatedAt = time.Time{}, time.Time{}
	return k
}

func TestRecordConnectionPostMarksAndClearsAFailingApp(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		c, err := f.svc.CreateConnection(ctx, f.owner, f.acme, workspace.NewConnection{Name: "Alerts", URL: "https://hooks.example.com/a"})
		require.NoError(t, err)
		require.Empty(t, c.Failure)
		long := strings.Repeat("x", workspace.MaxConnectionFailure+50)
		require.NoError(t, f.svc.RecordConnectionPost(ctx, f.acme, c.ID, long))
		got, err := f.svc.GetConnection(ctx, f.viewer, f.acme, c.ID)
		require.NoError(t, err)
		require.Equal(t, workspace.MaxConnectionFailure, utf8.RuneCountInString(got.Failure), "cut")
		require.True(t, strings.HasSuffix(got.Failure, "…"))
		require.NoError(t, f.svc.RecordConnectionPost(ctx, f.acme, c.ID, ""))
		got, err = f.svc.GetConnection(ctx, f.owner, f.acme, c.ID)
		require.NoError(t, err)
		require.Empty(t, got.Failure, "a post that works clears it")
		require.NoError(t, f.svc.RecordConnectionPost(ctx, f.other, c.ID, "wrong space"), "no such app there: nothing to record")
		got, err = f.svc.GetConnection(ctx, f.owner, f.acme, c.ID)
		require.NoError(t, err)
		require.Empty(t, got.Failure)
	})
}
