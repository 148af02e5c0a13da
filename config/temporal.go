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
//
// A profile (TEMPORAL_CONFIG_FILE, default the user's
// temporalio/temporal.toml when it exists; TEMPORAL_PROFILE, default
// "default") is read first, and the variables override it field by field:
// TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY (sent as
// `authorization: Bearer …`; turns TLS on), TEMPORAL_TLS (true/false),
// TEMPORAL_TLS_CLIENT_CERT_PATH/_DATA and TEMPORAL_TLS_CLIENT_KEY_PATH/_DATA
// (mTLS), TEMPORAL_TLS_SERVER_CA_CERT_PATH/_DATA, TEMPORAL_TLS_SERVER_NAME,
// TEMPORAL_TLS_DISABLE_HOST_VERIFICATION, TEMPORAL_CLIENT_AUTHORITY and
// TEMPORAL_GRPC_META_* (extra gRPC headers).
type TemporalClient struct {
	// Options are the client options without a logger (wiring adds it);
	// HostPort and Namespace are always set (Config.TemporalAddress and
	// Config.TemporalNamespace).
	Options client.Options
	// APIKey says whether an API key is configured (it is in Options'
	// credentials, never logged).
	APIKey bool
	// Source names where the settings came from, for error messages: the
	// profile and its file, or "environment".
	Source string
}

// TemporalFromEnv reads the Temporal client configuration. getenv is the
// environment; useOS says it is the process's own, whose whole environment
// (for TEMPORAL_GRPC_META_*) and the user's default profile file are then
// consulted too. A test's getenv reads only the file TEMPORAL_CONFIG_FILE
// names. A value that is present but wrong is an error.
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
		// Named on purpose: a file that is not there is an error, not
		// silently no profile (the SDK skips a missing file).
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
