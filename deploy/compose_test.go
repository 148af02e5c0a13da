package deploy

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

// repoRoot holds docker-compose.yml and Dockerfile, seen from this package's directory (go test
// runs a package's tests there).
const repoRoot = ".."

// hostEnv is the host environment the checks load the file with: what a person sets before
// `docker compose up`.
var hostEnv = map[string]string{
	"OPENAI_API_KEY":    "sk-compose-test",
	"OPENAI_BASE_URL":   "http://fakemodel:9090/v1",
	"HUB_MODEL":         "gpt-test",
	"POSTGRES_PASSWORD": "pw-compose-test",
	"MINIO_PASSWORD":    "minio-compose-test",
}

// hubServices run the Hub image; each is one subcommand of the hub binary.
var hubServices = map[string]string{"hub-migrate": "migrate", "hub-api": "api", "hub-worker": "worker"}

// startOrder is every depends_on edge the stack needs, with its condition.
var startOrder = []struct{ service, dependency, condition string }{
	{"temporal-schema", "postgres", types.ServiceConditionHealthy},
	{"temporal", "postgres", types.ServiceConditionHealthy},
	{"temporal", "temporal-schema", types.ServiceConditionCompletedSuccessfully},
	{"temporal-ui", "temporal", types.ServiceConditionHealthy},
	{"hub-migrate", "postgres", types.ServiceConditionHealthy},
	{"hub-migrate", "temporal", types.ServiceConditionHealthy},
	{"temporal-namespace", "temporal", types.ServiceConditionHealthy},
	{"hub-migrate", "temporal-namespace", types.ServiceConditionCompletedSuccessfully},
	{"hub-api", "hub-migrate", types.ServiceConditionCompletedSuccessfully},
	{"hub-worker", "hub-migrate", types.ServiceConditionCompletedSuccessfully},
	{"hub-api", "minio", types.ServiceConditionHealthy},
	{"hub-worker", "minio", types.ServiceConditionHealthy},
}

// publishedPorts are the documented host ports (docs, README) and where they lead.
var publishedPorts = []struct {
	service   string
	published string
	target    uint32
}{
	{"hub-api", "8080", 8080},
	{"temporal-ui", "8233", 8080},
	{"temporal", "7233", 7233},
}

func TestCompose(t *testing.T) {
	project := loadCompose(t, filepath.Join(repoRoot, "docker-compose.yml"), hostEnv)
	for _, problem := range checkCompose(project, absRepoRoot(t)) {
		t.Error(problem)
	}
}

// TestComposeWithoutHostEnv loads the file as on a machine where nothing is set: defaults fill
// in, and the pass-through variables stay unset instead of becoming empty strings.
func TestComposeWithoutHostEnv(t *testing.T) {
	project := loadCompose(t, filepath.Join(repoRoot, "docker-compose.yml"), nil)
	for name := range hubServices {
		service := project.Services[name]
		for _, key := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "HUB_MODEL"} {
			if value, ok := service.Environment[key]; ok && value != nil {
				t.Errorf("%s: %s = %q with nothing set on the host, want it unset", name, key, *value)
			}
		}
		if got := env(service, "DATABASE_URL"); !strings.Contains(got, "://hub:hub@postgres:5432/") {
			t.Errorf("%s: DATABASE_URL = %q, want the default password hub", name, got)
		}
	}
}

// TestComposeChecksCatchBreakage breaks a loaded project in the ways this file can plausibly
// rot and makes sure checkCompose notices each one: a check that cannot fail proves nothing.
func TestComposeChecksCatchBreakage(t *testing.T) {
	// Each breakage names the text its report must contain, so that it is caught for the right
	// reason.
	breakages := map[string]struct {
		want    string
		breakIt func(p *types.Project)
	}{
		"service removed": {"service hub-worker is missing", func(p *types.Project) { delete(p.Services, "hub-worker") }},
		"api not after migrate": {"hub-api depends on hub-migrate with condition", func(p *types.Project) {
			s := p.Services["hub-api"]
			dep := s.DependsOn["hub-migrate"]
			dep.Condition = types.ServiceConditionStarted
			s.DependsOn["hub-migrate"] = dep
			p.Services["hub-api"] = s
		}},
		"temporal before its schema": {"temporal does not depend on temporal-schema", func(p *types.Project) {
			s := p.Services["temporal"]
			delete(s.DependsOn, "temporal-schema")
			p.Services["temporal"] = s
		}},
		"no health check": {"temporal has no health check", func(p *types.Project) {
			s := p.Services["temporal"]
			s.HealthCheck = nil
			p.Services["temporal"] = s
		}},
		"disabled health check": {"hub-api has no health check", func(p *types.Project) {
			s := p.Services["hub-api"]
			s.HealthCheck = &types.HealthCheckConfig{Disable: true}
			p.Services["hub-api"] = s
		}},
		"port moved": {"temporal-ui does not publish host port 8233", func(p *types.Project) {
			s := p.Services["temporal-ui"]
			s.Ports = []types.ServicePortConfig{{Target: 8080, Published: "8088"}}
			p.Services["temporal-ui"] = s
		}},
		"missing mounted file": {"gone.yaml, which is not in the repository", func(p *types.Project) {
			s := p.Services["temporal"]
			s.Volumes = slices.Clone(s.Volumes)
			s.Volumes[0].Source = filepath.Join(filepath.Dir(s.Volumes[0].Source), "gone.yaml")
			p.Services["temporal"] = s
		}},
		"missing Dockerfile": {"Dockerfile.gone", func(p *types.Project) {
			s := p.Services["hub-api"]
			build := *s.Build
			build.Dockerfile = "Dockerfile.gone"
			s.Build = &build
			p.Services["hub-api"] = s
		}},
		"wrong Temporal address": {"hub-worker: TEMPORAL_ADDRESS", func(p *types.Project) {
			s := p.Services["hub-worker"]
			s.Environment = maps.Clone(s.Environment)
			s.Environment["TEMPORAL_ADDRESS"] = ptr("localhost:7233")
			p.Services["hub-worker"] = s
		}},
		"host variable not passed": {"hub-api: OPENAI_API_KEY", func(p *types.Project) {
			s := p.Services["hub-api"]
			s.Environment = maps.Clone(s.Environment)
			delete(s.Environment, "OPENAI_API_KEY")
			p.Services["hub-api"] = s
		}},
		"UI on all interfaces": {`temporal-ui publishes port 8233 on ""`, func(p *types.Project) {
			s := p.Services["temporal-ui"]
			s.Ports = []types.ServicePortConfig{{Target: 8080, Published: "8233"}}
			p.Services["temporal-ui"] = s
		}},
		"UI not hub dev's": {"want temporalio/ui:", func(p *types.Project) {
			s := p.Services["temporal-ui"]
			s.Image = "temporalio/ui:2.49.1"
			p.Services["temporal-ui"] = s
		}},
		"UI without health check": {"temporal-ui has no health check", func(p *types.Project) {
			s := p.Services["temporal-ui"]
			s.HealthCheck = nil
			p.Services["temporal-ui"] = s
		}},
		"passwords differ": {"temporal: POSTGRES_PWD", func(p *types.Project) {
			s := p.Services["temporal"]
			s.Environment = maps.Clone(s.Environment)
			s.Environment["POSTGRES_PWD"] = ptr("other")
			p.Services["temporal"] = s
		}},
	}
	root := absRepoRoot(t)
	for name, breakage := range breakages {
		t.Run(name, func(t *testing.T) {
			project := loadCompose(t, filepath.Join(repoRoot, "docker-compose.yml"), hostEnv)
			breakage.breakIt(project)
			problems := checkCompose(project, root)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, breakage.want) }) {
				t.Errorf("after %q checkCompose reported %q, want a problem containing %q", name, problems, breakage.want)
			}
		})
	}
}

// TestComposeLoaderRejectsBrokenFiles shows that the loader itself (schema validation and
// consistency checks, as in `docker compose config`) rejects a file that is not a valid stack.
func TestComposeLoaderRejectsBrokenFiles(t *testing.T) {
	original, err := os.ReadFile(filepath.Join(repoRoot, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(string) string{
		"unknown dependency": func(s string) string {
			return strings.Replace(s, "      hub-migrate:\n", "      hub-migrator:\n", 1)
		},
		"unknown key": func(s string) string {
			return strings.Replace(s, "    restart: unless-stopped\n", "    restart: unless-stopped\n    restrat: always\n", 1)
		},
		"bad YAML": func(s string) string { return strings.Replace(s, "services:\n", "services:\n  - oops\n", 1) },
	} {
		t.Run(name, func(t *testing.T) {
			broken := edit(string(original))
			if broken == string(original) {
				t.Fatalf("the edit %q no longer applies to docker-compose.yml; update this test", name)
			}
			path := filepath.Join(t.TempDir(), "docker-compose.yml")
			if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := load(t, path, hostEnv); err == nil {
				t.Errorf("the loader accepted a file with %s", name)
			}
		})
	}
}

// TestDockerfile checks the properties docker-compose.yml and the docs rely on: a multi-stage
// static build of ./cmd/hub with the module's toolchain, run as a non-root user with hub as the
// entrypoint, and wget in the final image for the api's health check.
func TestDockerfile(t *testing.T) {
	content, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(content)
	var froms []string
	var user, entrypoint string
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		switch strings.ToUpper(fields[0]) {
		case "FROM":
			froms = append(froms, fields[1])
		case "USER":
			user = fields[1]
		case "ENTRYPOINT":
			entrypoint = strings.Join(fields[1:], " ")
		}
	}
	if len(froms) < 2 {
		t.Errorf("Dockerfile has %d stages, want a build stage and a small runtime stage", len(froms))
	} else if final := froms[len(froms)-1]; strings.Contains(final, "golang") {
		t.Errorf("final stage is %s, want a small runtime image, not the Go toolchain", final)
	}
	for _, want := range []string{"GOTOOLCHAIN=go1.27.3", "CGO_ENABLED=0", "go build", "./cmd/hub"} {
		if !strings.Contains(text, want) {
			t.Errorf("Dockerfile does not mention %q", want)
		}
	}
	if user == "" || user == "root" || strings.HasPrefix(user, "0:") || user == "0" {
		t.Errorf("Dockerfile's last USER is %q, want a non-root user", user)
	}
	if !regexp.MustCompile(`^\[\s*"(/usr/local/bin/)?hub"`).MatchString(entrypoint) {
		t.Errorf("ENTRYPOINT %s, want the hub binary (exec form)", entrypoint)
	}
	if final := froms[len(froms)-1]; !strings.HasPrefix(final, "alpine") && !strings.Contains(text, "wget") {
		t.Errorf("runtime image %s may lack wget, which hub-api's health check runs", final)
	}
}

// checkCompose returns what is wrong with the stack in project; root is the repository's
// absolute path.
func checkCompose(project *types.Project, root string) []string {
	var problems []string
	problemf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	for _, name := range []string{"postgres", "temporal-schema", "temporal", "temporal-namespace", "temporal-ui", "minio", "hub-migrate", "hub-api", "hub-worker"} {
		if _, ok := project.Services[name]; !ok {
			problemf("service %s is missing", name)
		}
	}

	for _, edge := range startOrder {
		dependency, ok := project.Services[edge.service].DependsOn[edge.dependency]
		switch {
		case !ok:
			problemf("%s does not depend on %s", edge.service, edge.dependency)
		case dependency.Condition != edge.condition:
			problemf("%s depends on %s with condition %q, want %q", edge.service, edge.dependency, dependency.Condition, edge.condition)
		}
	}

	for _, name := range []string{"postgres", "temporal", "temporal-ui", "minio", "hub-api", "hub-worker"} {
		check := project.Services[name].HealthCheck
		if check == nil || check.Disable || len(check.Test) == 0 || check.Test[0] == "NONE" {
			problemf("%s has no health check, so depends_on conditions on it cannot work", name)
		}
	}
	if check := project.Services["hub-api"].HealthCheck; check != nil && !strings.Contains(strings.Join(check.Test, " "), "8080/readyz") {
		problemf("hub-api's health check %q does not ask /readyz on port 8080", check.Test)
	}
	worker := project.Services["hub-worker"]
	if check := worker.HealthCheck; check != nil && !strings.Contains(strings.Join(check.Test, " "), "127.0.0.1:8081/readyz") {
		problemf("hub-worker's health check %q does not ask /readyz on port 8081", check.Test)
	}
	if got := env(worker, "HUB_WORKER_HTTP_ADDR"); got != ":8081" {
		problemf("hub-worker: HUB_WORKER_HTTP_ADDR = %q, want \":8081\" (its health check asks there)", got)
	}

	for _, want := range publishedPorts {
		found := false
		for _, port := range project.Services[want.service].Ports {
			if port.Published == want.published && port.Target == want.target {
				found = true
			}
		}
		if !found {
			problemf("%s does not publish host port %s to container port %d: %+v", want.service, want.published, want.target, project.Services[want.service].Ports)
		}
	}

	// Nothing is published beyond the machine: the UI resets workflows and
	// signs no one in; a reverse proxy with sign-in goes in front
	// (deploy/README.md).
	for name, service := range project.Services {
		for _, port := range service.Ports {
			if port.Published != "" && port.HostIP != "127.0.0.1" {
				problemf("%s publishes port %s on %q, want 127.0.0.1 (reach it through a proxy)", name, port.Published, port.HostIP)
			}
		}
	}
	if want := uiVersion(root); want == "" {
		problemf("go.mod names no github.com/temporalio/ui-server/v2, the UI hub dev embeds")
	} else if image := project.Services["temporal-ui"].Image; image != "temporalio/ui:"+want {
		problemf("temporal-ui runs %s, want temporalio/ui:%s, the UI hub dev embeds", image, want)
	}

	for name, service := range project.Services {
		if service.Build != nil {
			dockerfile := service.Build.Dockerfile
			if !filepath.IsAbs(dockerfile) {
				dockerfile = filepath.Join(service.Build.Context, dockerfile)
			}
			if _, err := os.Stat(dockerfile); err != nil {
				problemf("%s builds from %s: %v", name, dockerfile, err)
			}
		}
		for _, volume := range service.Volumes {
			if volume.Type != types.VolumeTypeBind {
				continue
			}
			rel, err := filepath.Rel(root, volume.Source)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				problemf("%s mounts %s from outside the repository", name, volume.Source)
				continue
			}
			if _, err := os.Stat(volume.Source); err != nil {
				problemf("%s mounts %s, which is not in the repository: %v", name, rel, err)
			}
		}
	}

	password := hostEnv["POSTGRES_PASSWORD"]
	for name, command := range hubServices {
		service := project.Services[name]
		if service.Build == nil || service.Image != project.Services["hub-api"].Image {
			problemf("%s does not run the Hub image built from this repository (image %q)", name, service.Image)
		}
		if got := strings.Join(service.Command, " "); got != command {
			problemf("%s runs hub %q, want hub %s", name, got, command)
		}
		// The api and the worker never migrate (hub-migrate does, before
		// them): a rolling `up` must not race two versions' migrations.
		if m := env(service, "HUB_MIGRATE"); name != "hub-migrate" && (m == "1" || m == "true") {
			problemf("%s sets HUB_MIGRATE=%s; hub-migrate migrates, once, before it starts", name, m)
		}
		for key, want := range map[string]string{
			"DATABASE_URL":       "postgres://hub:" + password + "@postgres:5432/hub?sslmode=disable",
			"TEMPORAL_ADDRESS":   "temporal:7233",
			"TEMPORAL_NAMESPACE": "default",
			"HUB_HTTP_ADDR":      ":8080",
			"OPENAI_API_KEY":     hostEnv["OPENAI_API_KEY"],
			"OPENAI_BASE_URL":    hostEnv["OPENAI_BASE_URL"],
			"HUB_MODEL":          hostEnv["HUB_MODEL"],
			// Attached files go to the MinIO beside Hub, with its password.
			"HUB_FILES_S3_ENDPOINT":   "minio:9000",
			"HUB_FILES_S3_SECRET_KEY": hostEnv["MINIO_PASSWORD"],
			"HUB_FILES_S3_ACCESS_KEY": env(project.Services["minio"], "MINIO_ROOT_USER"),
		} {
			if got := env(service, key); got != want {
				problemf("%s: %s = %q, want %q", name, key, got, want)
			}
		}
	}

	temporal := project.Services["temporal"]
	schema := project.Services["temporal-schema"]
	for _, kv := range []struct{ service, key, want string }{
		{"temporal", "DB", "postgres12"},
		{"temporal", "POSTGRES_SEEDS", "postgres"},
		{"temporal", "POSTGRES_PWD", password},
		{"temporal-schema", "SQL_PLUGIN", "postgres12"},
		{"temporal-schema", "SQL_HOST", "postgres"},
		{"temporal-schema", "SQL_PASSWORD", password},
		{"postgres", "POSTGRES_PASSWORD", password},
		{"minio", "MINIO_ROOT_PASSWORD", hostEnv["MINIO_PASSWORD"]},
		{"temporal-ui", "TEMPORAL_ADDRESS", "temporal:7233"},
	} {
		if got := env(project.Services[kv.service], kv.key); got != kv.want {
			problemf("%s: %s = %q, want %q", kv.service, kv.key, got, kv.want)
		}
	}
	script := strings.Join(slices.Concat(schema.Entrypoint, schema.Command), " ")
	for _, want := range []string{"--db temporal create", "--db temporal update-schema", "--db temporal_visibility create", "--db temporal_visibility update-schema"} {
		if !strings.Contains(script, want) {
			problemf("temporal-schema does not run temporal-sql-tool %s", want)
		}
	}
	namespace := env(project.Services["hub-api"], "TEMPORAL_NAMESPACE")
	if created := strings.Join(project.Services["temporal-namespace"].Command, " "); !strings.Contains(created, "namespace create --namespace "+namespace+" ") {
		problemf("temporal-namespace does not create namespace %q, which Hub uses", namespace)
	}
	dynamicConfig := env(temporal, "DYNAMIC_CONFIG_FILE_PATH")
	mounted := false
	for _, volume := range temporal.Volumes {
		if volume.Target == dynamicConfig && filepath.ToSlash(volume.Source) == filepath.ToSlash(filepath.Join(root, "temporal/dynamicconfig/hub.yaml")) {
			mounted = true
		}
	}
	if !mounted {
		problemf("temporal reads dynamic config from %q, which is not ./temporal/dynamicconfig/hub.yaml mounted there", dynamicConfig)
	}
	return problems
}

// uiVersion is the version of the Temporal UI `hub dev` embeds, from
// go.mod ("" when it names none).
func uiVersion(root string) string {
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	m := regexp.MustCompile(`(?m)^\s*github\.com/temporalio/ui-server/v2 v(\S+)`).FindSubmatch(mod)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// TestComposeMetricsProfile checks the optional "metrics" profile:
// Prometheus scrapes the api and the worker where they serve /metrics, and
// Grafana gets Prometheus and Hub's dashboard, each service healthy-checked
// and on loopback.
func TestComposeMetricsProfile(t *testing.T) {
	project := loadCompose(t, filepath.Join(repoRoot, "docker-compose.yml"), hostEnv, "metrics")
	root := absRepoRoot(t)
	for _, problem := range checkCompose(project, root) {
		t.Error(problem)
	}
	for _, name := range []string{"prometheus", "grafana"} {
		service, ok := project.Services[name]
		if !ok {
			t.Fatalf("service %s is missing from the metrics profile", name)
		}
		if !slices.Equal(service.Profiles, []string{"metrics"}) {
			t.Errorf("%s has profiles %v, want only metrics (off by default)", name, service.Profiles)
		}
		if check := service.HealthCheck; check == nil || check.Disable || len(check.Test) == 0 {
			t.Errorf("%s has no health check", name)
		}
	}
	if _, on := loadCompose(t, filepath.Join(repoRoot, "docker-compose.yml"), hostEnv).Services["prometheus"]; on {
		t.Error("prometheus runs without the metrics profile")
	}
	scrape, err := os.ReadFile(filepath.Join(root, "deploy/prometheus.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{`"hub-api:8080"`, `"hub-worker:8081"`} {
		if !strings.Contains(string(scrape), target) {
			t.Errorf("deploy/prometheus.yml does not scrape %s", target)
		}
	}
	mounted := map[string]bool{}
	for _, v := range project.Services["grafana"].Volumes {
		rel, _ := filepath.Rel(root, v.Source)
		mounted[filepath.ToSlash(rel)] = true
	}
	for _, want := range []string{"deploy/grafana/provisioning", "deploy/grafana/dashboards"} {
		if !mounted[want] {
			t.Errorf("grafana does not mount %s: %v", want, mounted)
		}
	}
}

func loadCompose(t *testing.T, path string, env map[string]string, profiles ...string) *types.Project {
	t.Helper()
	project, err := load(t, path, env, profiles...)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return project
}

// load reads a compose file as `docker compose config` does, with only env as the host
// environment (not this process's, so a developer's shell cannot change the outcome), and
// the services of the given profiles.
func load(t *testing.T, path string, env map[string]string, profiles ...string) (*types.Project, error) {
	t.Helper()
	var list []string
	for key, value := range env {
		list = append(list, key+"="+value)
	}
	options, err := cli.NewProjectOptions([]string{path},
		cli.WithWorkingDirectory(repoRoot),
		cli.WithEnv(list),
		cli.WithResolvedPaths(true),
		cli.WithProfiles(profiles),
	)
	if err != nil {
		return nil, err
	}
	return options.LoadProject(t.Context())
}

func absRepoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// env returns a service's environment variable, "" when unset.
func env(service types.ServiceConfig, key string) string {
	if value := service.Environment[key]; value != nil {
		return *value
	}
	return ""
}

func ptr(s string) *string { return &s }
