// teamdeck web: keep the page's live regions current. The server renders every region
// (its text escaped there); this only opens the page's event stream and puts each
// region it is sent in its place. Without JavaScript the page is whole and a reload
// shows what is new.
"use strict";

(function () {
  const view = document.body.dataset.view;
  const status = document.getElementById("live-status");
  if (!view || !("EventSource" in window)) {
    return;
  }
  const say = (text, state) => {
    if (status) {
      status.textContent = text;
      status.dataset.state = state;
    }
  };
  const source = new EventSource("/events?view=" + encodeURIComponent(view));
  source.addEventListener("open", () => say("live", "live"));
  source.addEventListener("error", () => say("reconnecting…", "down"));
  source.addEventListener("regions", (event) => {
    const regions = JSON.parse(event.data);
    for (const [name, html] of Object.entries(regions)) {
      for (const region of document.querySelectorAll("[data-live]")) {
        if (region.dataset.live === name) {
          region.innerHTML = html;
        }
      }
    }
    document.body.dataset.updated = String(Date.now());
    say("live", "live");
  });
})();
