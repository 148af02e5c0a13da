-- +goose Up
-- Who signed in through the OpenID Connect provider (HUB_OIDC_ISSUER): a
-- provider's subject (issuer and sub together) is one person for good. The
-- first sign-in of a subject creates its person (and no membership).
CREATE TABLE oidc_subjects (
    issuer      TEXT NOT NULL,
    subject     TEXT NOT NULL,
    person_id   TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (issuer, subject)
);
CREATE INDEX oidc_subjects_person ON oidc_subjects (person_id);

-- +goose Down
DROP TABLE oidc_subjects;
