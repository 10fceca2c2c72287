/* Bao Arena play page: a person plays an engine on the replay's SVG board.
 *
 * The state comes from GET /api/play/{id}/ (data.url): the position, both clocks, and, when it
 * is the person's turn, the legal moves from the server's rules engine, each with its pit, its
 * direction and its nyumba choice. A move is built from those only: click (or Enter on) a
 * highlighted pit, then a direction, then stop/continue where the move has that choice; a
 * typed token is sent only if it is in the list. So an illegal move is never sent. This script
 * knows no rule of Bao. No dependencies.
 *
 * The game's event stream (data.events, GET /api/play/{id}/events, Server-Sent Events) says when
 * a move was applied or the game ended: each event asks for the state once. Where the stream
 * cannot be had (no EventSource, a 503 from a WSGI server, an error) the page polls instead:
 * every data.poll_ms while the engine is to move (or the game waits for a slot), every second
 * on the person's turn. Both clocks tick between answers.
 */
(function () {
  "use strict";
  var dataNode = document.getElementById("play-data");
  var board = document.getElementById("board");
  if (!dataNode || !board) return;
  var data = JSON.parse(dataNode.textContent);
  var csrf = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";
  var state = null; // the last answer of the API
  var received = 0; // performance.now() when it came
  var pick = { pit: null, direction: null };
  var sending = false;
  var pollTimer = null;
  var stream = null; // the EventSource while the game's stream is open
  var asked = 0; // the number of the latest state asked for: older answers are dropped

  function streaming() { return stream !== null && stream.readyState !== 2; }
  function later(ms) {
    clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, ms);
  }

  function $(id) { return document.getElementById(id); }
  function pit(square) { return $("pit-" + square); }
  function setText(node, text) { if (node) node.textContent = text; }

  // ---------------------------------------------------------------- the position (README 5)
  function drawPosition(text) {
    var fields = text.trim().split(/\s+/);
    var ranks = fields[0].split("/");
    var files = "abcdefgh";
    ranks.forEach(function (rank, r) {
      rank.split(",").forEach(function (cell, f) {
        var node = pit(files[f] + (ranks.length - r));
        if (!node) return;
        setText(node.querySelector(".count"), cell.replace(/[sn]$/, ""));
        node.classList.toggle("reserved-s", /s$/.test(cell));
        node.classList.toggle("reserved-n", /n$/.test(cell));
      });
    });
    var hands = (fields[2] || ":").split(":");
    setText($("hand-count-S"), hands[0]);
    setText($("hand-count-N"), hands[1]);
    $("hand-S").classList.toggle("to-move", fields[1] === "S");
    $("hand-N").classList.toggle("to-move", fields[1] === "N");
    if (ranks.length === 4) {
      var houses = fields[4] || "--";
      if (pit("e2")) pit("e2").classList.toggle("owned", houses[0] === "H");
      if (pit("d3")) pit("d3").classList.toggle("owned", houses[1] === "H");
      board.querySelectorAll(".pit.marked").forEach(function (n) { n.classList.remove("marked"); });
      if (fields[5] && fields[5] !== "-" && pit(fields[5])) pit(fields[5]).classList.add("marked");
    }
  }

  // ---------------------------------------------------------------- clocks
  function fmt(ms) {
    ms = Math.max(0, ms);
    var s = Math.floor(ms / 1000), m = Math.floor(s / 60);
    var text = m + ":" + String(s % 60).padStart(2, "0");
    return ms < 10000 ? text + "." + Math.floor((ms % 1000) / 100) : text;
  }
  function tick() {
    if (!state) return;
    var c = state.clocks, spent = performance.now() - received;
    ["S", "N"].forEach(function (side) {
      var ms = side === "S" ? c.south_ms : c.north_ms;
      if (c.running === side) ms -= spent;
      setText($("clock-time-" + side), fmt(ms));
      $("clock-" + side).classList.toggle("to-move", c.running === side);
    });
  }
  setInterval(tick, 100);

  // ---------------------------------------------------------------- choosing a move
  function legal() { return state && state.your_turn && !sending ? state.legal : []; }
  function candidates() {
    return legal().filter(function (m) {
      return (pick.pit === null || m.pit === pick.pit) &&
        (pick.direction === null || m.direction === pick.direction);
    });
  }
  function resetPick() { pick = { pit: null, direction: null }; showPick(); }

  function showPick() {
    var moves = legal(), pits = {};
    moves.forEach(function (m) { pits[m.pit] = true; });
    board.querySelectorAll(".pit").forEach(function (node) {
      var square = node.dataset.square, can = !!pits[square];
      node.classList.toggle("choosable", can && pick.pit === null);
      node.classList.toggle("active", square === pick.pit);
      if (can && pick.pit === null) {
        node.setAttribute("tabindex", "0");
        node.setAttribute("role", "button");
        node.setAttribute("aria-label", "pit " + square);
      } else {
        node.removeAttribute("tabindex");
        node.removeAttribute("role");
      }
    });
    var left = candidates();
    var needDirection = !sending && pick.pit !== null && pick.direction === null;
    var needChoice = !sending && pick.pit !== null && pick.direction !== null;
    $("pick-direction").hidden = !needDirection;
    $("pick-choice").hidden = !needChoice;
    ["-", "+"].forEach(function (d) {
      var button = $(d === "+" ? "dir-plus" : "dir-minus");
      button.disabled = !left.some(function (m) { return m.direction === d; });
    });
    ["s", "c"].forEach(function (c) {
      $("choice-" + c).disabled = !left.some(function (m) { return m.choice === c; });
    });
    var hint = "";
    if (!state) hint = "Loading...";
    else if (sending) hint = "Sending your move...";
    else if (state.status === "pending") hint = "Waiting for a worker to start the game...";
    else if (state.status !== "running") hint = "The game is over.";
    else if (!state.your_turn) hint = state.side_to_move === state.your_side ? "Sending your move..." : "The engine is thinking...";
    else if (pick.pit === null) hint = "Your move: choose a highlighted pit.";
    else if (needDirection) hint = "Pit " + pick.pit + ": choose the direction.";
    else hint = "Stop in the nyumba or continue the sowing?";
    setText($("pick-hint"), hint);
  }

  function choose(part, value) {
    if (sending || !state || !state.your_turn) return;
    if (part === "pit") {
      if (!legal().some(function (m) { return m.pit === value; })) return;
      pick = { pit: value, direction: null };
    } else if (part === "direction") {
      if (pick.pit === null) return;
      pick.direction = value;
    }
    var left = candidates();
    if (part === "choice") left = left.filter(function (m) { return m.choice === value; });
    if (left.length === 0) { resetPick(); return; }
    // One move left, and nothing of it is still to choose: play it (a Kingulu move is its pit).
    var done = left.length === 1 && (left[0].direction === null || pick.direction !== null) &&
      (left[0].choice === null || part === "choice");
    if (done) { send(left[0].move); return; }
    showPick();
  }

  board.addEventListener("click", function (event) {
    var node = event.target.closest ? event.target.closest(".pit") : null;
    if (node) choose("pit", node.dataset.square);
  });
  board.addEventListener("keydown", function (event) {
    var node = event.target.closest ? event.target.closest(".pit") : null;
    if (node && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      choose("pit", node.dataset.square);
      var first = document.querySelector("#pick-direction button:not([disabled])");
      if (first && !$("pick-direction").hidden) first.focus();
    }
  });
  ["dir-minus", "dir-plus"].forEach(function (id) {
    $(id).addEventListener("click", function () { choose("direction", this.dataset.direction); });
  });
  ["choice-s", "choice-c"].forEach(function (id) {
    $(id).addEventListener("click", function () { choose("choice", this.dataset.choice); });
  });
  document.addEventListener("keydown", function (event) {
    if (event.target && event.target.id === "type-move") return;
    if (event.key === "+" || event.key === "-") choose("direction", event.key);
    else if (event.key === "s" || event.key === "c") choose("choice", event.key);
    else if (event.key === "Escape") resetPick();
  });
  $("type-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var token = $("type-move").value.trim();
    if (!legal().some(function (m) { return m.move === token; })) {
      setText($("type-error"), token ? token + " is not a legal move here." : "");
      return;
    }
    setText($("type-error"), "");
    $("type-move").value = "";
    send(token);
  });

  // ---------------------------------------------------------------- talking to the API
  function api(method, url, body) {
    var options = { method: method, credentials: "same-origin", headers: { "Accept": "application/json" } };
    if (method === "POST") {
      options.headers["Content-Type"] = "application/json";
      options.headers["X-CSRFToken"] = csrf;
      options.body = JSON.stringify(body || {});
    }
    return fetch(url, options).then(function (r) {
      return r.json().then(function (json) { return { ok: r.ok, json: json }; });
    });
  }

  function show(json) {
    // A new position (the engine answered, even within the answer to our move): a half-made
    // choice belongs to the old one.
    if (!state || state.position !== json.position || !json.your_turn) pick = { pit: null, direction: null };
    state = json;
    received = performance.now();
    drawPosition(json.position);
    var list = $("move-list");
    while (list.children.length < json.moves.length) {
      var m = json.moves[list.children.length], li = document.createElement("li");
      li.textContent = m.side + " " + m.move;
      list.appendChild(li);
    }
    var last = json.moves[json.moves.length - 1];
    board.querySelectorAll(".pit.ended").forEach(function (n) { n.classList.remove("ended"); });
    if (last && pit(last.move.slice(0, 2))) pit(last.move.slice(0, 2)).classList.add("ended");
    showPick();
    tick();
    var status = $("play-status");
    if (status.textContent !== json.status && json.status !== "finished" && json.status !== "aborted") {
      setText(status, json.status);  // pending, then running once a people slot took the game
      status.className = "status " + json.status;
      if (json.status === "running") {
        document.querySelectorAll(".messages .success").forEach(function (n) { n.remove(); });
      }
    }
    if (json.status === "finished" || json.status === "aborted") {
      $("resign").disabled = true;
      var result = $("play-result");
      result.textContent = "";
      var b = document.createElement("b");
      b.textContent = json.result + " by " + json.termination + ". ";
      result.appendChild(b);
      var link = document.createElement("a");
      link.href = json.replay;
      link.id = "replay-link";
      link.textContent = "See the replay";
      result.appendChild(link);
      setText($("play-status"), json.status);
      return false;
    }
    return true;
  }

  function poll() {
    clearTimeout(pollTimer);
    var n = ++asked;
    api("GET", data.url).then(function (r) {
      if (!r.ok || n !== asked) return;
      // An answer that left before our move did is older than the move's own answer.
      if (sending) return;
      if (show(r.json) && !streaming()) later(r.json.your_turn ? 1000 : data.poll_ms);
    }, function () { later(2000); });
  }

  function stopListening() {
    if (stream) stream.close();
    stream = null;
    board.dataset.transport = "poll";
  }

  function listen() {
    if (!window.EventSource || !data.events) return;
    stream = new EventSource(data.events);
    // How the page hears of moves ("stream" once open, "poll" after a fallback).
    stream.addEventListener("open", function () { board.dataset.transport = "stream"; });
    // A move and its clock come in one write: one state read for both.
    ["game", "move", "clock"].forEach(function (kind) {
      stream.addEventListener(kind, function () { if (!sending) later(20); });
    });
    stream.addEventListener("end", function () {
      if (stream) stream.close();
      stream = null;
      later(20);
    });
    // A 503 (a WSGI server), a dropped connection: poll from now on.
    stream.onerror = function () { stopListening(); later(data.poll_ms); };
  }

  function send(token) {
    sending = true;
    clearTimeout(pollTimer);
    pick = { pit: null, direction: null };
    showPick();
    // The ply guards against a double click or a retry being taken as a second move: the
    // same move for a ply already taken answers the game as it stands.
    api("POST", data.url + "move/", { move: token, ply: state.plies + 1 }).then(function (r) {
      sending = false;
      pick = { pit: null, direction: null };
      var code = r.json.error ? r.json.error.code : "";
      if (!r.ok) setText($("type-error"), r.json.error ? r.json.error.message : "refused");
      else show(r.json);
      // The game moved on under this page (another tab, a stale state): read it again.
      if (code === "ply_mismatch" || code === "not_your_turn") { poll(); return; }
      if (!streaming()) later(data.poll_ms);
    }, function () { sending = false; poll(); });
  }

  $("resign").addEventListener("click", function () {
    $("resign").disabled = true;
    api("POST", data.url + "resign/").then(function () { poll(); });
  });

  listen();
  poll();
})();
