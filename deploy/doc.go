// Package deploy checks Hub's deployment files at the repository root, docker-compose.yml and
// Dockerfile, with the loader that `docker compose` itself uses (compose-spec/compose-go), so
// that a broken stack fails `make test` instead of the first `docker compose up`. It has no
// code of its own; see compose_test.go.
package deploy
