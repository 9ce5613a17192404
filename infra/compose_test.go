package main

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// localstack/docker-compose.yml and deploy-localstack.sh, read against the
// template of LocalStack mode and the rest of the repository.

// composeFile is the part of docker-compose.yml the tests read.
type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Networks map[string]struct {
		Name string `yaml:"name"`
	} `yaml:"networks"`
}

type composeService struct {
	Image       string     `yaml:"image"`
	Command     []string   `yaml:"command"`
	Environment composeEnv `yaml:"environment"`
	Ports       []string   `yaml:"ports"`
	Networks    composeSet `yaml:"networks"`
}

// composeEnv reads environment as a list of KEY=VALUE or as a map.
type composeEnv map[string]string

func (e *composeEnv) UnmarshalYAML(n *yaml.Node) error {
	*e = composeEnv{}
	if n.Kind == yaml.MappingNode {
		var m map[string]string
		if err := n.Decode(&m); err != nil {
			return err
		}
		for k, v := range m {
			(*e)[k] = v
		}
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return err
	}
	for _, kv := range list {
		k, v, _ := strings.Cut(kv, "=")
		(*e)[k] = v
	}
	return nil
}

// composeSet reads a list of names, or a map keyed by them.
type composeSet []string

func (s *composeSet) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		var m map[string]any
		if err := n.Decode(&m); err != nil {
			return err
		}
		for k := range m {
			*s = append(*s, k)
		}
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return err
	}
	*s = list
	return nil
}

func readCompose(t *testing.T) composeFile {
	t.Helper()
	b, err := os.ReadFile("../localstack/docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return c
}

// localStackServices maps a resource type's namespace (AWS::<namespace>::…)
// to the LocalStack service (its SERVICES name) that deploys it; "" for
// CloudFormation's own bookkeeping.
var localStackServices = map[string]string{
	"ApiGateway":     "apigateway",
	"CDK":            "",
	"CloudFormation": "cloudformation",
	"CloudWatch":     "cloudwatch",
	"DynamoDB":       "dynamodb",
	"Events":         "events",
	"IAM":            "iam",
	"KMS":            "kms",
	"Lambda":         "lambda",
	"Logs":           "logs",
	"S3":             "s3",
	"SES":            "ses",
	"SNS":            "sns",
	"SQS":            "sqs",
	"SSM":            "ssm",
	"SecretsManager": "secretsmanager",
}

// deployServices are the LocalStack services a cdklocal bootstrap and
// deploy use beyond the template's resources: CloudFormation itself; CDK's
// bootstrap stack (an S3 asset bucket encrypted with a KMS key, an SSM
// parameter with its version, IAM roles, a mock ECR repository that needs
// no service); STS for the account; and CloudWatch, where SQS and Lambda
// publish metrics (optional dependencies in LocalStack's
// localstack/utils/bootstrap.py, which strict service loading does not
// start by itself, unlike mandatory ones such as secretsmanager → kms).
var deployServices = []string{"cloudformation", "cloudwatch", "iam", "kms", "s3", "ssm", "sts"}

func TestComposeServicesCoverTemplate(t *testing.T) {
	c := readCompose(t)
	ls, ok := c.Services["localstack"]
	if !ok {
		t.Fatal("docker-compose.yml has no localstack service")
	}
	listed := strings.Split(ls.Environment["SERVICES"], ",")
	for i := range listed {
		listed[i] = strings.TrimSpace(listed[i])
	}
	need := map[string]string{} // service → why
	for _, s := range deployServices {
		need[s] = "CDK bootstrap and deploy"
	}
	for _, typ := range resourceTypes(synthLocalStack(t).doc) {
		ns := strings.Split(typ, "::")[1]
		s, ok := localStackServices[ns]
		if !ok {
			t.Errorf("%s: no LocalStack service known for namespace %s (add it to localStackServices)", typ, ns)
			continue
		}
		if s != "" {
			need[s] = typ
		}
	}
	for s, why := range need {
		if !slices.Contains(listed, s) {
			t.Errorf("SERVICES lacks %s (%s); LocalStack 4.x starts only the services listed", s, why)
		}
	}
}

func TestComposeSESv2Container(t *testing.T) {
	c := readCompose(t)
	ls := c.Services["localstack"]
	if !regexp.MustCompile(`^localstack/localstack:\d+\.\d+\.\d+$`).MatchString(ls.Image) {
		t.Errorf("localstack image %q, want a pinned 4.x tag (latest needs an auth token)", ls.Image)
	}

	ses, ok := c.Services[sesv2Service]
	if !ok {
		t.Fatalf("no %s service: the functions' %s is %s", sesv2Service, sesv2EndpointVar, defaultSESv2Endpoint)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	b, err := os.ReadFile("../localstack/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	version := pkg.Dependencies["aws-ses-v2-local"]
	cmd := strings.Join(ses.Command, " ")
	if version == "" || !slices.Contains(ses.Command, "aws-ses-v2-local@"+version) {
		t.Errorf("%s runs %q, want aws-ses-v2-local@%s (localstack/package.json)", sesv2Service, cmd, version)
	}
	if !strings.Contains(cmd, "--host 0.0.0.0") || !strings.Contains(cmd, "--port "+sesv2Port) {
		t.Errorf("%s runs %q, want it on 0.0.0.0:%s", sesv2Service, cmd, sesv2Port)
	}
	if !slices.Contains(ses.Ports, "127.0.0.1:"+sesv2Port+":"+sesv2Port) {
		t.Errorf("%s ports %v, want %s published on 127.0.0.1 (GET /store lists the mail sent)", sesv2Service, ses.Ports, sesv2Port)
	}

	// Function containers join LAMBDA_DOCKER_NETWORK: it must be the
	// network both services are on, by its real (un-prefixed) name.
	network := ls.Environment["LAMBDA_DOCKER_NETWORK"]
	var key string
	for k, n := range c.Networks {
		if n.Name == network {
			key = k
		}
	}
	if network == "" || key == "" {
		t.Fatalf("LAMBDA_DOCKER_NETWORK=%q names no network of the file with a fixed name", network)
	}
	for _, s := range []string{"localstack", sesv2Service} {
		if !slices.Contains(c.Services[s].Networks, key) {
			t.Errorf("%s is not on network %s (%s)", s, key, network)
		}
	}
}

// The deploy script passes the context this file's tests synthesize with,
// keeps the region through cdklocal, and waits for LocalStack first.
func TestDeployScript(t *testing.T) {
	b, err := os.ReadFile("../localstack/deploy-localstack.sh")
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	for _, want := range []string{
		contextLocalStack + "=true",
		contextArch + "=",
		"AWS_ENVAR_ALLOWLIST=AWS_REGION,AWS_DEFAULT_REGION",
		"/_localstack/init/ready",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("deploy-localstack.sh does not say %q", want)
		}
	}
	ready := strings.Index(script, "/_localstack/init/ready")
	if boot := strings.Index(script, "cdklocal\" bootstrap"); boot < 0 || boot < ready {
		t.Errorf("deploy-localstack.sh must wait for LocalStack before cdklocal bootstrap")
	}
}
