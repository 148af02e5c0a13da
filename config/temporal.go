package config

import (
	"cmp"
	"fmt"
	"os"
	"strings"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
)

// TemporalClient is the Temporal client configuration `hub api`, `hub
// worker` and `hub migrate` dial with: the SDK's environment configuration
// (go.temporal.io/sdk/contrib/envconfig), as the temporal CLI and the other
// SDKs read it, so one set of variables or one profile file serves them all.
// A profile (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE) is read first, and the
// TEMPORAL_* variables override it field by field.
type TemporalClient struct {
	// Options lack a logger (wiring adds it); HostPort and Namespace are always set.
	Options client.Options
	APIKey  bool   // an API key is configured (in Options' credentials, never logged)
	Source  string // where the settings came from, for error messages
}

// TemporalFromEnv reads the Temporal client configuration; a value that is
// present but wrong is an error. useOS says getenv is the process's own
// environment: then all of it (for TEMPORAL_GRPC_META_*) and the user's
// default profile file count too.
func TemporalFromEnv(getenv func(string) string, useOS bool) (TemporalClient, error) {
	for _, k := range []string{"TEMPORAL_TLS", "TEMPORAL_TLS_DISABLE_HOST_VERIFICATION"} {
		switch v := strings.ToLower(strings.TrimSpace(getenv(k))); v {
		case "", "1", "0", "true", "false":
		default:
			return TemporalClient{}, fmt.Errorf("%s: want true or false, not %q", k, v)
		}
	}
	file := getenv("TEMPORAL_CONFIG_FILE")
	req := envconfig.LoadClientConfigProfileOptions{EnvLookup: lookup{getenv: getenv, os: useOS}, DisableFile: file == "" && !useOS}
	if file != "" {
		// The SDK skips a missing file; one named on purpose must exist.
		if _, err := os.Stat(file); err != nil {
			return TemporalClient{}, fmt.Errorf("TEMPORAL_CONFIG_FILE: %w", err)
		}
	} else if useOS {
		file = envconfig.DefaultConfigFilePath()
	}
	source := "environment"
	if _, err := os.Stat(file); file != "" && err == nil {
		profile := cmp.Or(getenv("TEMPORAL_PROFILE"), envconfig.DefaultConfigFileProfile)
		source = fmt.Sprintf("profile %q of %s and the environment", profile, file)
	}
	prof, err := envconfig.LoadClientConfigProfile(req)
	if err != nil {
		return TemporalClient{}, fmt.Errorf("the Temporal client configuration (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE): %w", err)
	}
	opts, err := prof.ToClientOptions(envconfig.ToClientOptionsRequest{})
	if err != nil {
		return TemporalClient{}, fmt.Errorf("the Temporal client configuration (%s; TEMPORAL_TLS_*): %w", source, err)
	}
	return TemporalClient{Options: opts, APIKey: prof.APIKey != "", Source: source}, nil
}

// lookup is envconfig's view of getenv: a variable set to "" counts as
// unset, as everywhere in Hub (compose passes unset ones as empty).
type lookup struct {
	getenv func(string) string
	os     bool
}

func (l lookup) LookupEnv(k string) (string, bool) {
	v := l.getenv(k)
	return v, v != ""
}

func (l lookup) Environ() []string {
	if l.os {
		return os.Environ()
	}
	return nil
}
