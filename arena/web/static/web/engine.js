// Bao Arena, the engine page: while a version is being validated, ask the API for its status
// every 2 s and reload the page once every such version has its outcome (active or rejected).
(function () {
  "use strict";
  var note = document.getElementById("validation-note");
  if (!note) { return; }
  var name = note.getAttribute("data-engine");
  var numbers = note.getAttribute("data-versions").split(",");
  var waiting = { pending: true, validating: true };
  var tries = 0;

  function check() {
    tries += 1;
    var done = 0;
    numbers.forEach(function (n) {
      fetch("/api/engines/" + encodeURIComponent(name) + "/versions/" + n + "/", { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (v) {
          if (v && !waiting[v.status]) { done += 1; }
          if (done === numbers.length) { window.location.reload(); }
        })
        .catch(function () {});
    });
    if (tries < 300) { window.setTimeout(check, 2000); }  // about 10 minutes, then stop asking
  }
  window.setTimeout(check, 2000);
})();
