package bench

import (
	"bytes"
	"fmt"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
)

// importRowsPerOp is how many CSV rows one benchmark op imports:
// BENCHTIME=1000x imports 100,000 rows.
const importRowsPerOp = 100

// importCSV is a file of n contacts with names, tags and two properties.
func importCSV(n int) []byte {
	var buf bytes.Buffer
	buf.WriteString("email,first_name,last_name,tags,plan,seats\n")
	for i := range n {
		fmt.Fprintf(&buf, "person%d@example.com,First%d,Last%d,customer;vip,pro,%d\n", i, i, i, i%50)
	}
	return buf.Bytes()
}

// BenchmarkContactImport imports a CSV file through the owner service (as
// `sesame contacts import` does), then imports it again: rows per second
// and DynamoDB capacity units per contact billed by AWS's rules, for new
// contacts and for updates of existing ones.
func BenchmarkContactImport(b *testing.B) {
	ctx := b.Context()
	billed := &billedDB{DB: dynamotest.Client(b)}
	db := &dynamotest.Recorder{DB: billed}
	repos := repositories.New(&dynamo.Table{DB: db, Name: dynamotest.NewTable(b)})
	ws, err := repos.Workspaces.CreateWorkspace(ctx, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	svc := contact.Service{Store: repos.Contacts, Imports: repos.Contacts}
	rows := b.N * importRowsPerOp
	file := importCSV(rows)

	db.Reset()
	billed.take()
	start := time.Now()
	rep, err := svc.Import(ctx, ws.ID, bytes.NewReader(file), nil)
	createTime := time.Since(start)
	if err != nil || rep.Created != rows || len(rep.Failed) != 0 {
		b.Fatalf("import: %+v, %v", rep, err)
	}
	createItems := db.Writes()
	createCalls := db.Total()
	createWrite := billed.take().Write

	b.StopTimer()
	db.Reset()
	billed.take()
	start = time.Now()
	rep, err = svc.Import(ctx, ws.ID, bytes.NewReader(file), nil)
	updateTime := time.Since(start)
	if err != nil || rep.Updated != rows || rep.Created != 0 {
		b.Fatalf("second import: %+v, %v", rep, err)
	}
	update := billed.take()

	n := float64(rows)
	b.ReportMetric(n/createTime.Seconds(), "rows/s")
	b.ReportMetric(float64(createItems)/n, "items-written/new-contact")
	b.ReportMetric(createWrite/n, "WCU/new-contact")
	b.ReportMetric(float64(createCalls)/n, "ddb-calls/new-contact")
	b.ReportMetric(n/updateTime.Seconds(), "update-rows/s")
	b.ReportMetric(update.Write/n, "WCU/updated-contact")
	b.ReportMetric(update.Read/n, "RCU/updated-contact")
}
