package contact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/sesame-mail/sesame/internal/fail"
	"golang.org/x/sync/errgroup"
)

// ImportStore is what an import writes through.
type ImportStore interface {
	// ContactIDsByEmail returns the id of each email's contact; an email
	// without one is absent from the map.
	ContactIDsByEmail(ctx context.Context, workspaceID string, emails []string) (map[string]string, error)
	// CreateContacts stores new contacts (at most CreateBatch), each email
	// claimed in the same transaction; it returns the emails another
	// contact took meanwhile, whose contacts it did not store.
	CreateContacts(ctx context.Context, cs []Contact) (taken []string, err error)
	UpdateContact(ctx context.Context, workspaceID, id string, p Patch) (Contact, error)
}

// CreateBatch is how many contacts one CreateContacts call takes: 50
// contacts and their claims are DynamoDB's 100 items per transaction.
const CreateBatch = 50

// ImportChunk is how many rows are looked up and written together.
const ImportChunk = 1000

// Importer imports a CSV file into a workspace, idempotently by email:
// an existing contact is updated with the row's non-empty cells, a new
// one is created. Email uniqueness holds as for the API: every new
// contact is written with its claim in a transaction.
type Importer struct {
	Store ImportStore
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Workers is how many writes run at once (8 when 0).
	Workers int
}

// RowError is a row that was not imported, and why.
type RowError struct {
	Line int
	Err  error
}

func (e RowError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Report is what an import did.
type Report struct {
	Rows    int        `json:"rows"`
	Created int        `json:"created"`
	Updated int        `json:"updated"`
	Failed  []RowError `json:"-"`
}

// Import reads the file and writes it a chunk at a time; progress, when
// set, gets the report so far after each chunk. A bad header or a store
// fault stops it; a bad row is reported and skipped, as is a row whose
// email an earlier row of the file has.
func (im Importer) Import(ctx context.Context, workspaceID string, r io.Reader, progress func(Report)) (Report, error) {
	var rep Report
	seen := map[string]int{} // email → line
	var chunk []Row
	flush := func() error {
		if err := im.writeChunk(ctx, workspaceID, chunk, &rep); err != nil {
			return err
		}
		chunk = chunk[:0]
		if progress != nil {
			progress(rep)
		}
		return nil
	}
	err := ReadCSV(r, func(row Row) error {
		rep.Rows++
		if row.Err != nil {
			rep.Failed = append(rep.Failed, RowError{row.Line, row.Err})
			return nil
		}
		if first, dup := seen[*row.Patch.Email]; dup {
			rep.Failed = append(rep.Failed, RowError{row.Line, fmt.Errorf("%s is also on line %d", *row.Patch.Email, first)})
			return nil
		}
		seen[*row.Patch.Email] = row.Line
		chunk = append(chunk, row)
		if len(chunk) == ImportChunk {
			return flush()
		}
		return nil
	})
	if err == nil && len(chunk) > 0 {
		err = flush()
	}
	return rep, err
}

// writeChunk looks the chunk's emails up, creates the new contacts in
// transactions of CreateBatch and updates the existing ones, Workers at
// a time. A row whose email was taken meanwhile is updated instead.
func (im Importer) writeChunk(ctx context.Context, workspaceID string, rows []Row, rep *Report) error {
	emails := make([]string, len(rows))
	for i, row := range rows {
		emails[i] = *row.Patch.Email
	}
	ids, err := im.Store.ContactIDsByEmail(ctx, workspaceID, emails)
	if err != nil {
		return err
	}
	var fresh []Contact
	var existing []Row
	byEmail := map[string]Row{}
	for _, row := range rows {
		if _, ok := ids[*row.Patch.Email]; ok {
			existing = append(existing, row)
			continue
		}
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		c, err := New(workspaceID, id.String(), row.Patch, im.now())
		if err != nil {
			rep.Failed = append(rep.Failed, RowError{row.Line, err})
			continue
		}
		fresh = append(fresh, c)
		byEmail[c.Email] = row
	}
	var mu sync.Mutex
	var taken []Row
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(im.workers())
	for start := 0; start < len(fresh); start += CreateBatch {
		batch := fresh[start:min(start+CreateBatch, len(fresh))]
		g.Go(func() error {
			lost, err := im.Store.CreateContacts(gctx, batch)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			rep.Created += len(batch) - len(lost)
			for _, e := range lost {
				taken = append(taken, byEmail[e])
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if len(taken) > 0 { // claimed meanwhile: look up by whom
		emails := make([]string, len(taken))
		for i, row := range taken {
			emails[i] = *row.Patch.Email
		}
		now, err := im.Store.ContactIDsByEmail(ctx, workspaceID, emails)
		if err != nil {
			return err
		}
		maps.Copy(ids, now)
		existing = append(existing, taken...)
	}
	return im.update(ctx, workspaceID, existing, ids, rep)
}

// update applies each row to the contact ids names for its email.
func (im Importer) update(ctx context.Context, workspaceID string, rows []Row, ids map[string]string, rep *Report) error {
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(im.workers())
	for _, row := range rows {
		g.Go(func() error {
			id, ok := ids[*row.Patch.Email]
			err := ErrNotFound
			if ok {
				_, err = im.Store.UpdateContact(gctx, workspaceID, id, row.Patch)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				rep.Updated++
			case errors.Is(err, ErrNotFound), errors.Is(err, ErrExists), isRefused(err):
				rep.Failed = append(rep.Failed, RowError{row.Line, err})
			default:
				return err
			}
			return nil
		})
	}
	return g.Wait()
}

func (im Importer) now() time.Time {
	if im.Now != nil {
		return im.Now()
	}
	return time.Now()
}

func (im Importer) workers() int {
	if im.Workers > 0 {
		return im.Workers
	}
	return 8
}

// isRefused reports whether a row's change was refused (over a cap once
// merged), not failed.
func isRefused(err error) bool { return fail.KindOf(err) == fail.KindInvalid }
