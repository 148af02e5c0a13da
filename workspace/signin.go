package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"gorm.io/gorm/clause"

	"hub/storage"
)

// ViaOIDC is how a person's first sign-in through the identity provider
// arrives, in the audit log.
const ViaOIDC = "oidc"

// AuditSignIn is the kind of the audit event of a subject's first sign-in
// through the identity provider: an event of Hub as a whole (no space).
const AuditSignIn = "sign_in"

// DefaultSignInName names a person whose provider gave no name.
const DefaultSignInName = "New person"

// SignInSubject returns the person a subject of the OpenID Connect provider
// signs in as. Its first sign-in creates the person, named name (else
// DefaultSignInName), in no space, and audits it; two first sign-ins at
// once make one person.
func (s *Service) SignInSubject(ctx context.Context, issuer, subject, name string) (Person, error) {
	if p, err := s.subjectPerson(ctx, issuer, subject); !errors.Is(err, ErrNotFound) {
		return p, err
	}
	name = signInName(name)
	var out Person
	err := s.InTx(ctx, func(ctx context.Context) error {
		p := storage.Person{ID: storage.NewID("person"), Name: name, CreatedAt: s.now()}
		if err := s.q(ctx).Create(&p).Error; err != nil {
			return fmt.Errorf("create the person of %s: %w", subject, err)
		}
		row := storage.OIDCSubject{Issuer: issuer, Subject: subject, PersonID: p.ID, CreatedAt: s.now()}
		if err := guarded(s.q(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&row), "record subject "+subject,
			errSubjectTaken); err != nil {
			return err
		}
		out = Person{ID: p.ID, Name: p.Name}
		return s.audit(ctx, Actor{PersonID: p.ID, Via: ViaOIDC}, "", AuditSignIn, AuditCreated, p.ID,
			"person signed in for the first time through OIDC", map[string]any{"issuer": issuer, "subject": subject, "name": name})
	})
	if errors.Is(err, errSubjectTaken) {
		// Another request signed the subject in first: its person it is.
		return s.subjectPerson(ctx, issuer, subject)
	}
	return out, err
}

var errSubjectTaken = errors.New("the subject signed in meanwhile")

// subjectPerson is the person of a known subject; ErrNotFound for a new one.
func (s *Service) subjectPerson(ctx context.Context, issuer, subject string) (Person, error) {
	q := s.q(ctx).Joins("JOIN oidc_subjects ON oidc_subjects.person_id = people.id").
		Where("oidc_subjects.issuer = ? AND oidc_subjects.subject = ?", issuer, subject)
	p, err := takeOne[storage.Person](q, ErrNotFound, "read the person of subject "+subject)
	if err != nil {
		return Person{}, err
	}
	return toPerson(p), nil
}

// signInName is the provider's name made a person's name: one clean line
// of at most MaxPersonName characters, else DefaultSignInName.
func signInName(name string) string {
	name = strings.TrimSpace(CleanText(name))
	if utf8.RuneCountInString(name) > MaxPersonName {
		name = strings.TrimSpace(string([]rune(name)[:MaxPersonName]))
	}
	name, err := CheckLine("/name", "a name", name, MaxPersonName)
	if err != nil || name == "" {
		return DefaultSignInName
	}
	return name
}

// HubAudit returns the newest audit events of Hub as a whole (of no space),
// at most limit, for the operator (`hub audit`): it checks no access.
func (s *Service) HubAudit(ctx context.Context, limit int) ([]AuditEvent, error) {
	events, err := auditEvents(s.q(ctx).Where("audit_events.space_id IS NULL"), limit)
	if err != nil {
		return nil, fmt.Errorf("read Hub's audit log: %w", err)
	}
	return events, nil
}
