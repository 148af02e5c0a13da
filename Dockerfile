# syntax=docker/dockerfile:1
# Hub's image: one static binary (hub api | worker | migrate | ...), run as a non-root user.
#
#   docker build -t hub:local .        (docker compose up --build does this)

ARG GO_VERSION=1.27.3

FROM golang:${GO_VERSION}-alpine AS build
# Same toolchain as go.mod, whatever the base image ships.
ENV GOTOOLCHAIN=go1.27.3 CGO_ENABLED=0
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags="-s -w" -o /out/hub ./cmd/hub

FROM alpine:3.22
# ca-certificates: HTTPS to the model API; tzdata: time zones; busybox wget: health checks.
RUN apk add --no-cache ca-certificates tzdata && \
    addgroup -S -g 10001 hub && \
    adduser -S -D -H -u 10001 -G hub -h /home/hub hub && \
    mkdir -p /home/hub && chown hub:hub /home/hub
COPY --from=build /out/hub /usr/local/bin/hub
WORKDIR /home/hub
USER 10001:10001
EXPOSE 8080
ENTRYPOINT ["hub"]
CMD ["api"]
