package dashboard

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
)

// maxImport bounds a CSV upload: API Gateway's payload limit is 10 MB.
const maxImport = 9 << 20

// contactsShown bounds the contact list.
const contactsShown = 100

func (a *App) contactRoutes() []route {
	return []route{
		{pattern: "GET /contacts", handler: a.contacts},
		{pattern: "GET /contacts/import", handler: a.importForm},
		{pattern: "POST /contacts/import", handler: a.importContacts, maxBody: maxImport},
		{pattern: "GET /contacts/{id}", handler: a.contactPage},
		{pattern: "POST /contacts/{id}/delete", handler: a.deleteContact},
	}
}

type contactsData struct {
	Contacts []contact.Contact
	Email    string
	Error    string
}

func (a *App) contacts(w http.ResponseWriter, r *http.Request, s *session) error {
	d := contactsData{Email: strings.TrimSpace(r.URL.Query().Get("email"))}
	list, err := a.svc.Owner.Contacts.List(r.Context(), s.WorkspaceID, contact.Filter{Email: d.Email}, contactsShown)
	if err != nil {
		return err
	}
	d.Contacts = list
	return a.render(w, s, http.StatusOK, "contacts.html", "Contacts", "/contacts", d)
}

type contactData struct {
	Contact contact.View
	Emails  []email.Email
	Scanned int
}

// contactOf is the workspace's contact of the path's id.
func (a *App) contactOf(r *http.Request, s *session) (contact.Contact, error) {
	id := r.PathValue("id")
	if strings.Contains(id, "@") {
		return contact.Contact{}, errNotFound // an address is searched for, not a path
	}
	ct, err := a.svc.Owner.Contacts.Show(r.Context(), s.WorkspaceID, id)
	return ct, err
}

func (a *App) contactPage(w http.ResponseWriter, r *http.Request, s *session) error {
	ct, err := a.contactOf(r, s)
	if err != nil {
		return err
	}
	sent, err := a.svc.Owner.Contacts.EmailsTo(r.Context(), s.WorkspaceID, ct)
	if err != nil {
		return err
	}
	return a.render(w, s, http.StatusOK, "contact.html", ct.Email, "/contacts", contactData{
		Contact: ct.View(), Emails: sent, Scanned: contact.EmailsScanned,
	})
}

// deleteContact deletes the contact after a page that names it and asks:
// its personal data goes, a do-not-send entry of its address stays.
func (a *App) deleteContact(w http.ResponseWriter, r *http.Request, s *session) error {
	ct, err := a.contactOf(r, s)
	if err != nil {
		return err
	}
	ask := func() (confirmation, error) {
		return confirmation{
			Title: "Delete a contact", Question: "Delete the contact", Name: ct.Email,
			Lost:   "Its personal data (name, properties, tags, subscription) is deleted and cannot be restored; a do-not-send entry of the address, if it has one, stays.",
			Action: "/contacts/" + ct.ID + "/delete", Button: "Delete the contact",
			Back: "/contacts/" + ct.ID, Keep: "Keep the contact", nav: "/contacts",
		}, nil
	}
	return a.askThenDo(w, r, s, ask, account.ActionContactDeleted, "/contacts", func(ctx context.Context) (string, error) {
		return ct.ID, a.svc.Owner.Contacts.Delete(ctx, s.WorkspaceID, ct.ID)
	})
}

type importData struct {
	Error string
	// Streaming marks the page written while the import runs: its
	// progress lines go where #import-progress is.
	Streaming bool
}

func (a *App) importForm(w http.ResponseWriter, _ *http.Request, s *session) error {
	return a.render(w, s, http.StatusOK, "contacts-import.html", "Import contacts", "/contacts", importData{})
}

// progressMark is where the import page is split to stream its progress.
const progressMark = `<ol id="import-progress" aria-live="polite"></ol>`

// importContacts imports the uploaded CSV file, writing the page as the
// import goes: a line per chunk written, then the report (a browser shows
// each line as it comes; behind API Gateway the page arrives whole).
func (a *App) importContacts(w http.ResponseWriter, r *http.Request, s *session) error {
	file, _, err := r.FormFile("file")
	if err != nil {
		return a.render(w, s, http.StatusBadRequest, "contacts-import.html", "Import contacts", "/contacts", importData{Error: "Choose a CSV file to import."})
	}
	defer file.Close()
	page, err := a.page(s, "contacts-import.html", "Import contacts", "/contacts", importData{Streaming: true})
	if err != nil {
		return err
	}
	head, tail, ok := bytes.Cut(page, []byte(progressMark))
	if !ok {
		return errors.New("dashboard: the import page has no progress list")
	}
	t, err := a.pages.lookup("contacts-import.html") // its progress templates
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	flusher, _ := w.(http.Flusher)
	write := func(b []byte) {
		_, _ = w.Write(b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	write(append(head, `<ol id="import-progress" aria-live="polite">`...))
	rep, err := a.svc.Owner.Contacts.Import(r.Context(), s.WorkspaceID, file, func(rep contact.Report) {
		var b bytes.Buffer
		if t.ExecuteTemplate(&b, "progress-line", rep) == nil {
			write(b.Bytes())
		}
	})
	var out bytes.Buffer
	out.WriteString("</ol>\n")
	switch {
	case err == nil:
		err = a.audit(r.Context(), s, account.ActionContactsImported, "")
		_ = t.ExecuteTemplate(&out, "import-done", rep)
	default:
		var header *contact.HeaderError
		msg := "the rows could not all be written; those before were imported. Import the file again: imported rows are updated, not duplicated."
		if errors.As(err, &header) {
			msg = err.Error()
		}
		_ = t.ExecuteTemplate(&out, "import-failed", msg)
		a.logger.WarnContext(r.Context(), "dashboard import stopped", "err", err)
		err = nil // the page, sent already, says so
	}
	out.Write(tail)
	write(out.Bytes())
	return err
}
