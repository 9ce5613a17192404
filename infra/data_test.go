package main

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/jsii-runtime-go"

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/queue"
)

// keySchema is the CloudFormation KeySchema of a partition and sort key.
func keySchema(pk, sk string) []any {
	ks := []any{map[string]any{"AttributeName": pk, "KeyType": "HASH"}}
	if sk != "" {
		ks = append(ks, map[string]any{"AttributeName": sk, "KeyType": "RANGE"})
	}
	return ks
}

func TestTableMatchesSchema(t *testing.T) {
	s := synth(t)
	tbl := s.doc.Resources[onlyID(t, s.doc, "AWS::DynamoDB::Table")]
	p := tbl.Properties
	want := schema.Table

	if got, exp := p["KeySchema"], keySchema(want.PartitionKey, want.SortKey); !reflect.DeepEqual(got, exp) {
		t.Errorf("KeySchema = %v, want %v", got, exp)
	}

	// Every key attribute of the table and its indexes, once, as a string.
	var wantAttrs []string
	for _, a := range []string{want.PartitionKey, want.SortKey} {
		if a != "" && !slices.Contains(wantAttrs, a) {
			wantAttrs = append(wantAttrs, a)
		}
	}
	var wantGSIs []any
	for _, ix := range want.Indexes {
		for _, a := range []string{ix.PartitionKey, ix.SortKey} {
			if a != "" && !slices.Contains(wantAttrs, a) {
				wantAttrs = append(wantAttrs, a)
			}
		}
		wantGSIs = append(wantGSIs, map[string]any{
			"IndexName":  ix.Name,
			"KeySchema":  keySchema(ix.PartitionKey, ix.SortKey),
			"Projection": map[string]any{"ProjectionType": "ALL"},
		})
	}
	var gotAttrs []string
	for _, d := range p["AttributeDefinitions"].([]any) {
		d := d.(map[string]any)
		if d["AttributeType"] != "S" {
			t.Errorf("attribute %v has type %v, want S", d["AttributeName"], d["AttributeType"])
		}
		gotAttrs = append(gotAttrs, d["AttributeName"].(string))
	}
	slices.Sort(wantAttrs)
	slices.Sort(gotAttrs)
	if !slices.Equal(gotAttrs, wantAttrs) {
		t.Errorf("AttributeDefinitions = %v, want %v", gotAttrs, wantAttrs)
	}

	gotGSIs, _ := p["GlobalSecondaryIndexes"].([]any)
	byName := func(a, b any) int {
		return strings.Compare(a.(map[string]any)["IndexName"].(string), b.(map[string]any)["IndexName"].(string))
	}
	slices.SortFunc(gotGSIs, byName)
	slices.SortFunc(wantGSIs, byName)
	if !reflect.DeepEqual(gotGSIs, wantGSIs) {
		t.Errorf("GlobalSecondaryIndexes = %v, want %v", gotGSIs, wantGSIs)
	}

	wantTTL := map[string]any{"AttributeName": want.TTLAttribute, "Enabled": true}
	if got := p["TimeToLiveSpecification"]; !reflect.DeepEqual(got, wantTTL) {
		t.Errorf("TimeToLiveSpecification = %v, want %v", got, wantTTL)
	}

	check(t, func() {
		s.template.HasResource(jsii.String("AWS::DynamoDB::Table"), map[string]any{
			"DeletionPolicy":      "Retain",
			"UpdateReplacePolicy": "Retain",
			"Properties": map[string]any{
				"BillingMode": "PAY_PER_REQUEST",
				"PointInTimeRecoverySpecification": map[string]any{
					"PointInTimeRecoveryEnabled": true,
				},
			},
		})
	})
}

func TestQueuesWithDeadLetterQueues(t *testing.T) {
	s := synth(t)
	byName := map[string]string{} // QueueName → logical id
	for id, q := range s.doc.ofType("AWS::SQS::Queue") {
		name, _ := q.Properties["QueueName"].(string)
		byName[name] = id
	}
	if len(byName) != 2*len(queue.All) {
		t.Errorf("%d queues, want a queue and a DLQ for each of %d", len(byName), len(queue.All))
	}
	for _, d := range queue.All {
		qid, ok := byName[testStackName+"-"+d.Name]
		dlqID, dlqOK := byName[testStackName+"-"+d.DLQName()]
		if !ok || !dlqOK {
			t.Errorf("queue %s: queue found %v, DLQ found %v", d.Name, ok, dlqOK)
			continue
		}
		p := s.doc.Resources[qid].Properties
		if got := p["VisibilityTimeout"]; got != d.VisibilityTimeout.Seconds() {
			t.Errorf("%s: VisibilityTimeout = %v, want %v", d.Name, got, d.VisibilityTimeout.Seconds())
		}
		rp, _ := p["RedrivePolicy"].(map[string]any)
		if got := rp["maxReceiveCount"]; got != float64(d.MaxReceives) {
			t.Errorf("%s: maxReceiveCount = %v, want %d", d.Name, got, d.MaxReceives)
		}
		if got := getAttTarget(rp["deadLetterTargetArn"], "Arn"); got != dlqID {
			t.Errorf("%s: dead-letter target = %q, want %q", d.Name, got, dlqID)
		}
	}
}

func TestQueueRetention(t *testing.T) {
	s := synth(t)
	queues := queueIDs(s.doc)
	const fourteenDays = 1209600.0
	for _, d := range queue.All {
		dlq := s.doc.Resources[queues[d.DLQName()]].Properties
		if got := dlq["MessageRetentionPeriod"]; got != fourteenDays {
			t.Errorf("%s: MessageRetentionPeriod = %v, want %v", d.DLQName(), got, fourteenDays)
		}
		got := s.doc.Resources[queues[d.Name]].Properties["MessageRetentionPeriod"]
		if d == queue.Webhooks {
			if got != fourteenDays {
				t.Errorf("%s: MessageRetentionPeriod = %v, want %v (the retry schedule outlasts 4 days' default)", d.Name, got, fourteenDays)
			}
		} else if got != nil {
			t.Errorf("%s: MessageRetentionPeriod = %v, want SQS's default", d.Name, got)
		}
	}
}

// isTLSDeny is a statement refusing every SQS request to its resources
// made without TLS, from anyone.
func isTLSDeny(st map[string]any) bool {
	cond, _ := st["Condition"].(map[string]any)
	tls, _ := cond["Bool"].(map[string]any)
	anyone := st["Principal"] == "*" || reflect.DeepEqual(st["Principal"], map[string]any{"AWS": "*"})
	return st["Effect"] == "Deny" && anyone && slices.Equal(actions(st), []string{"sqs:*"}) &&
		tls["aws:SecureTransport"] == "false" && len(cond) == 1
}

// Every queue, dead-letter queues too, refuses requests made without TLS;
// each is in one queue policy (SQS keeps one per queue: a second would
// replace the first).
func TestQueuesRequireTLS(t *testing.T) {
	for mode, s := range map[string]*synthed{"default": synth(t), "localstack": synthLocalStack(t)} {
		policyOf := map[string]string{} // queue logical id → policy
		denied := map[string]bool{}     // queue ARN, rendered
		for id, qp := range s.doc.ofType("AWS::SQS::QueuePolicy") {
			for _, q := range qp.Properties["Queues"].([]any) {
				if other, ok := policyOf[refTarget(q)]; ok {
					t.Errorf("%s: queue %s is in policies %s and %s", mode, refTarget(q), other, id)
				}
				policyOf[refTarget(q)] = id
			}
			doc, _ := qp.Properties["PolicyDocument"].(map[string]any)
			for _, st := range doc["Statement"].([]any) {
				if st := st.(map[string]any); isTLSDeny(st) {
					for _, r := range resources(st) {
						denied[r] = true
					}
				}
			}
		}
		queues := s.doc.ofType("AWS::SQS::Queue")
		if len(queues) != 2*len(queue.All) {
			t.Errorf("%s: %d queues, want %d (each work queue and its dead-letter queue)", mode, len(queues), 2*len(queue.All))
		}
		for id := range queues {
			if policyOf[id] == "" || !denied["${"+id+".Arn}"] {
				t.Errorf("%s: queue %s does not refuse requests without TLS (policy %q)", mode, id, policyOf[id])
			}
		}
	}
}
