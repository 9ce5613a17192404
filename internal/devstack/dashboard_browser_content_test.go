package devstack_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// In a browser, an email's preview fetches no remote image when its page
// is opened (a tracking pixel stays silent), and fetches it once the
// owner presses "Load remote images".
func TestDashboardPreviewLoadsImagesOnPurpose(t *testing.T) {
	e := startDev(t)
	o := newOwnedBulk(t, e, 1)
	var hits atomic.Int32
	pixel := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "image/gif")
		_, _ = w.Write([]byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))
	}))
	t.Cleanup(pixel.Close)
	body := `<p id="hello">Hello</p><img src="` + pixel.URL + `/pixel.gif" alt="">`
	clearTemplate(t, e, o.id, body)
	sent := e.post(o.key, "/api/v1/send", msg("pixel", map[string]any{"html": body})).sent(t, http.StatusOK)

	tab := newTab(t)
	link := e.requestLink(t, noRedirects(), o.owner)
	run(t, tab, chromedp.Navigate(link), click(css("main button[type=submit]")), chromedp.WaitVisible(css("#waiting")))
	run(t, tab, chromedp.Navigate(e.url+"/dashboard/emails/"+sent.ID), chromedp.WaitVisible(css("#load-images")))
	time.Sleep(time.Second) // the frame's image would have been asked for by now
	if n := hits.Load(); n != 0 {
		t.Fatalf("opening the email's page fetched its remote image %d times", n)
	}
	run(t, tab, click(css("#load-images")))
	for i := 0; hits.Load() == 0 && i < 100; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if hits.Load() == 0 {
		t.Error(`"Load remote images" did not load the email's image`)
	}
}
