/* Bao Arena board viewer: steps through a game and animates each sowing.
 *
 * The server draws the SVG board and embeds the game as JSON (<script id="game-data">): every
 * move with its position text after it and its sowing trace from the rules engine
 * (arena/rules/trace.py). This script knows no rule of Bao: it writes the counts the position
 * notation and the trace steps give into the pits. No dependencies.
 *
 * Keys: Left/Right a ply, Home/End the start/end, space play/pause. Links #ply-N select a ply.
 * Live pages (data.live) read the game's events from data.live.events (Server-Sent Events:
 *   move, clock, game, end; docs/live.md): they follow the match to its next game in place,
 *   tick the clock of the side to move, and at the match's end go back to /live/<id>/ (which
 *   moves on to the tournament's next running game) or, on the TV, to /tv/. Where no stream
 *   can be had they poll data.live.url?since=N about once a second.
 */
(function () {
  "use strict";
  var dataNode = document.getElementById("game-data");
  var board = document.getElementById("board");
  if (!dataNode || !board) return;
  var data = JSON.parse(dataNode.textContent);
  var moves = data.moves;
  var STEP_MS = 140; // one seed
  var PLY_PAUSE_MS = 500; // between two moves while playing
  var state = { ply: Number(document.getElementById("viewer").dataset.ply) || 0, playing: false, timer: null };

  function $(id) { return document.getElementById(id); }
  function pit(square) { return $("pit-" + square); }
  function setText(node, text) { if (node) node.textContent = text; }

  // ---------------------------------------------------------------- position notation
  function positionAt(ply) { return ply === 0 ? data.start_position : moves[ply - 1].position; }

  /* README 5: ranks from the top separated by "/", cells by ","; a cell is a count with an
   * optional reservation suffix (s/n, Kingulu). Then side, reserves or banks, ... */
  function drawPosition(text) {
    var fields = text.trim().split(/\s+/);
    var ranks = fields[0].split("/");
    var files = "abcdefgh";
    ranks.forEach(function (rank, r) {
      rank.split(",").forEach(function (cell, f) {
        var square = files[f] + (ranks.length - r);
        var node = pit(square);
        if (!node) return;
        setText(node.querySelector(".count"), cell.replace(/[sn]$/, ""));
        node.classList.toggle("reserved-s", /s$/.test(cell));
        node.classList.toggle("reserved-n", /n$/.test(cell));
      });
    });
    var side = fields[1];
    var hands = (fields[2] || ":").split(":");
    setText($("hand-count-S"), hands[0]);
    setText($("hand-count-N"), hands[1]);
    $("hand-S").classList.toggle("to-move", side === "S");
    $("hand-N").classList.toggle("to-move", side === "N");
    if (ranks.length === 4) { // BPN: houses (South, North) and the takasia mark
      var houses = fields[4] || "--";
      var south = pit("e2"), north = pit("d3");
      if (south) south.classList.toggle("owned", houses[0] === "H");
      if (north) north.classList.toggle("owned", houses[1] === "H");
      board.querySelectorAll(".pit.marked").forEach(function (n) { n.classList.remove("marked"); });
      if (fields[5] && fields[5] !== "-" && pit(fields[5])) pit(fields[5]).classList.add("marked");
    }
    setText($("sowing-hand"), "");
    $("position-text").value = text;
    return side;
  }

  // ---------------------------------------------------------------- highlights
  var MARKS = ["lifted", "sown", "captured", "ended", "active"];
  function clearMarks() {
    board.querySelectorAll(".pit").forEach(function (n) {
      MARKS.forEach(function (c) { n.classList.remove(c); });
    });
  }

  function highlight(trace) {
    clearMarks();
    if (!trace) return;
    trace.steps.forEach(function (step, i) {
      var node = pit(step.square);
      if (!node) return;
      if (step.op === "lift" && !step.rule) node.classList.add("lifted");
      else if (step.op === "sow" || step.op === "bank") node.classList.add("sown");
      else if (step.op === "capture") node.classList.add("captured");
      if (i === trace.steps.length - 1) node.classList.add("ended");
    });
  }

  function describe(move, trace) {
    var caption = $("caption");
    caption.textContent = "";
    if (!move) { caption.textContent = "Start position"; return; }
    var who = move.side === "S" ? "South" : "North";
    caption.appendChild(document.createTextNode(who + " played "));
    var b = document.createElement("b"); b.textContent = move.move; caption.appendChild(b);
    if (!trace) return;
    var parts = [", " + trace.direction];
    parts.push(trace.laps.length + (trace.laps.length === 1 ? " lap" : " laps"));
    caption.appendChild(document.createTextNode(parts.join(", ") + ": " + trace.laps.join(" ") + " "));
    trace.steps.forEach(function (step) {
      var text = null;
      if (step.op === "capture") text = "captures " + step.square + " (" + step.seeds + ")";
      else if (step.op === "kichwa") text = "kichwa " + step.square + " " + step.direction + (step.rule === "kimbi" ? " (kimbi)" : "");
      else if (step.op === "nyumba") text = "nyumba " + step.rule;
      else if (step.op === "mtoto") text = "mtoto " + step.square;
      else if (step.op === "end" && step.rule === "won") text = "wins with " + step.hand + " in hand";
      else if (step.op === "end" && step.rule === "takasia") text = "ends in the takasia pit";
      if (text) {
        var span = document.createElement("span");
        span.className = "rule"; span.textContent = text; caption.appendChild(span);
      }
    });
  }

  // ---------------------------------------------------------------- clocks, info, list
  function formatMs(ms) {
    if (ms === null || ms === undefined) return "-";
    var s = Math.floor(ms / 1000), m = Math.floor(s / 60);
    var tenths = Math.floor((ms % 1000) / 100);
    return m + ":" + String(s % 60).padStart(2, "0") + "." + tenths;
  }

  function showClocks(ply, side) {
    var clock = { S: data.base_ms, N: data.base_ms };
    for (var i = 0; i < ply; i++) clock[moves[i].side] = moves[i].clock_ms;
    ["S", "N"].forEach(function (s) {
      setText($("clock-time-" + s), formatMs(clock[s]));
      $("clock-" + s).classList.toggle("to-move", s === side);
    });
  }

  function showInfo(move) {
    var lines = move ? (move.info || []) : [];
    setText($("info-lines"), move ? (lines.length ? lines.join("\n") : "(none)") : "");
  }

  function markCurrent(ply) {
    document.querySelectorAll("#move-list a.current").forEach(function (a) { a.classList.remove("current"); });
    var link = $("move-" + ply);
    if (link) {
      link.classList.add("current");
      var list = $("move-list");
      if (list.scrollHeight > list.clientHeight) link.scrollIntoView({ block: "nearest" });
    }
  }

  function appendMoveLinks(from) {
    var list = $("move-list");
    for (var i = from; i < moves.length; i++) {
      var m = moves[i];
      var li = document.createElement("li");
      // The labels of gamerecord.move_number: "3." before South, "3..." before a North
      // move that does not follow a South move.
      var number = Math.floor((m.ply + 1) / 2);
      var previous = i > 0 ? moves[i - 1].side : null;
      var label = m.side === "S" ? number + "." : (previous !== "S" ? number + "..." : "");
      if (label) {
        var num = document.createElement("span");
        num.className = "num"; num.textContent = label;
        li.appendChild(num); li.appendChild(document.createTextNode(" "));
      }
      var a = document.createElement("a");
      a.id = "move-" + m.ply; a.href = "#ply-" + m.ply; a.textContent = m.move;
      li.appendChild(a); list.appendChild(li);
    }
    setText($("ply-count"), String(moves.length));
  }

  // ---------------------------------------------------------------- showing a ply
  function show(ply, withMarks) {
    ply = Math.max(0, Math.min(ply, moves.length));
    state.ply = ply;
    var move = ply > 0 ? moves[ply - 1] : null;
    var side = drawPosition(positionAt(ply));
    clearMarks();
    if (move && withMarks !== false) highlight(move.trace);
    describe(move, move && move.trace);
    showClocks(ply, side);
    showTicking();
    showInfo(move);
    markCurrent(ply);
    setText($("ply-number"), String(ply));
    var wanted = "#ply-" + ply;
    if (location.hash !== wanted) history.replaceState(null, "", wanted);
  }

  function stop() {
    state.playing = false;
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
    $("btn-play").classList.remove("playing");
    $("btn-play").innerHTML = "&#x25B6;";
  }

  function go(ply) { stop(); show(ply); }

  /* Play: sow the next move seed by seed from the position before it, then go on. */
  function animate(ply) {
    if (!state.playing) return;
    if (ply > moves.length) { stop(); return; }
    var move = moves[ply - 1];
    var steps = move.trace ? move.trace.steps : [];
    drawPosition(positionAt(ply - 1));
    clearMarks();
    describe(move, move.trace);
    var i = 0;
    function next() {
      if (!state.playing) return;
      if (i >= steps.length) {
        show(ply);
        state.timer = setTimeout(function () { animate(ply + 1); }, PLY_PAUSE_MS);
        return;
      }
      var step = steps[i++];
      var node = pit(step.square);
      board.querySelectorAll(".pit.active").forEach(function (n) { n.classList.remove("active"); });
      if (node) {
        node.classList.add("active");
        setText(node.querySelector(".count"), String(step.count));
        if (step.op === "lift" && !step.rule) node.classList.add("lifted");
        else if (step.op === "sow" || step.op === "bank") node.classList.add("sown");
        else if (step.op === "capture") node.classList.add("captured");
      }
      if (step.op === "bank") setText($("hand-count-" + step.side), String(step.bank));
      if (step.op === "capture" && step.bank !== undefined) setText($("hand-count-" + step.side), String(step.bank));
      setText($("sowing-hand"), step.hand ? String(step.hand) : "");
      state.ply = ply;
      setText($("ply-number"), String(ply));
      state.timer = setTimeout(next, STEP_MS);
    }
    next();
  }

  function togglePlay() {
    if (state.playing) { stop(); show(state.ply); return; }
    if (state.ply >= moves.length) show(0);
    state.playing = true;
    $("btn-play").classList.add("playing");
    $("btn-play").innerHTML = "<b>II</b>";
    animate(state.ply + 1);
  }

  // ---------------------------------------------------------------- controls
  function bind(id, handler) {
    $(id).addEventListener("click", function (event) { event.preventDefault(); handler(); });
  }
  bind("btn-first", function () { go(0); });
  bind("btn-prev", function () { go(state.ply - 1); });
  bind("btn-next", function () { go(state.ply + 1); });
  bind("btn-last", function () { go(moves.length); });
  bind("btn-play", togglePlay);
  bind("copy-position", function () {
    var input = $("position-text");
    input.select();
    if (navigator.clipboard) navigator.clipboard.writeText(input.value).catch(function () { document.execCommand("copy"); });
    else document.execCommand("copy");
    var button = $("copy-position");
    button.textContent = "Copied";
    setTimeout(function () { button.textContent = "Copy"; }, 1200);
  });
  document.addEventListener("keydown", function (event) {
    if (event.target && /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var keys = {
      ArrowLeft: function () { go(state.ply - 1); },
      ArrowRight: function () { go(state.ply + 1); },
      Home: function () { go(0); },
      End: function () { go(moves.length); },
      " ": togglePlay,
    };
    if (keys[event.key]) { event.preventDefault(); keys[event.key](); }
  });
  function fromHash() {
    var match = /^#ply-(\d+)$/.exec(location.hash);
    if (match && Number(match[1]) !== state.ply) go(Number(match[1]));
  }
  window.addEventListener("hashchange", fromHash);

  // ---------------------------------------------------------------- live games
  var live = data.live;
  /* The running clock: the last clock event's times, whose side's clock runs since `since`
   * (performance.now() less the event's elapsed_ms), drawn every 100 ms at the last ply. */
  var ticking = null;
  var lastEnd = null;

  function showTicking() {
    if (!live || !ticking || state.ply !== moves.length) return;
    var now = performance.now();
    ["S", "N"].forEach(function (s) {
      var ms = ticking[s];
      if (ms !== null && ms !== undefined && s === ticking.side) ms = Math.max(0, ms - (now - ticking.since));
      setText($("clock-time-" + s), formatMs(ms));
      $("clock-" + s).classList.toggle("to-move", s === ticking.side);
      $("clock-" + s).classList.toggle("ticking", s === ticking.side);
    });
  }

  function setStatus(text, cls) {
    var status = $("live-status");
    status.className = "status " + cls;
    status.textContent = text;
  }

  function notice(text) {
    var node = $("live-notice");
    node.textContent = text;
    node.hidden = !text;
  }

  function replayLink(id) {
    if (id) $("replay-link").innerHTML = '&middot; <a href="/games/' + Number(id) + '/">replay</a>';
  }

  function addMoves(list) {
    var following = state.ply === moves.length && !state.playing;
    var before = moves.length;
    list.forEach(function (m) { if (m.ply === moves.length + 1) moves.push(m); });
    if (moves.length > before) {
      appendMoveLinks(before);
      if (following) show(moves.length);
    }
  }

  function endText(d) {
    return d.result ? d.result + " by " + d.termination : "over";
  }

  /* The match's next game started: the page becomes its page (the board, the names, the
   * list), saying how the last one ended. */
  function switchGame(d, again) {
    var ended = lastEnd && lastEnd.index === live.index ? endText(lastEnd) : "over";
    if (again) notice("The match was played again from game " + d.index + ".");
    else notice("Game " + live.index + " is over (" + ended + "). Now game " + d.index + " of the match.");
    live.index = d.index; live.id = d.live; live.url = "/api/live/" + d.live + "/";
    live.status = "running"; live.game = null;
    stop();
    moves.length = 0;
    data.start_position = d.start_position;
    $("move-list").innerHTML = "";
    setText($("ply-count"), "0");
    setText($("live-south"), d.south.name); setText($("live-north"), d.north.name);
    setText(document.querySelector("#clock-S .name"), d.south.name);
    setText(document.querySelector("#clock-N .name"), d.north.name);
    setText($("live-index"), String(d.index));
    setStatus("running", "running");
    $("replay-link").innerHTML = "";
    ticking = null;
    history.replaceState(null, "", "/live/" + d.live + "/");
    show(0);
  }

  function moveOn(url) { setTimeout(function () { location.assign(url); }, 3000); }

  function gameEnded(d) {
    live.status = d.result === "*" ? "aborted" : "finished";
    setStatus(live.status + " " + endText(d), live.status);
    if (ticking) ticking.side = null;
    showTicking();
    lastEnd = d;
    notice("This game is over: " + endText(d) + "." + (live.tv ? " The TV moves on to the next game." : ""));
  }

  function stream() {
    var es = new EventSource(live.events);
    var opened = false;
    es.onopen = function () { opened = true; setText($("live-transport"), "(pushed)"); };
    es.onerror = function () {
      // A server that holds no streams (503), a gone game (404): poll. A dropped connection
      // is retried by the browser, which resumes from the last event's id.
      if (es.readyState === 2) { es.close(); poll(); }
    };
    function on(kind, handler) {
      es.addEventListener(kind, function (event) { handler(JSON.parse(event.data)); });
    }
    on("game", function (d) {
      // A later game of the match, or this one again (a match retried after a worker died).
      var again = d.index === live.index && live.gameSeq && d.seq > live.gameSeq;
      if (!live.tv && (d.index > live.index || again)) switchGame(d, again);
      if (d.index === live.index) live.gameSeq = d.seq;
    });
    on("move", function (d) { if (d.index === live.index) addMoves([d]); });
    on("clock", function (d) {
      if (d.index !== live.index) return;
      ticking = { S: d.S, N: d.N, side: d.side, since: performance.now() - (d.elapsed_ms || 0) };
      showTicking();
    });
    on("end", function (d) {
      if (d.scope === "match") {
        es.close();
        if (d.games) replayLink(d.games[String(live.index)]);
        var text = $("live-notice").hidden ? "" : $("live-notice").textContent + " ";
        notice(text + "The match is over" + (d.status === "aborted" ? " (aborted)." : "."));
        if (live.tv) moveOn("/tv/");
        else if (live.match_running) moveOn("/live/" + live.id + "/"); // its tournament's next game
        live.match_running = false;
        return;
      }
      if (d.index !== live.index) return;
      gameEnded(d);
      if (live.tv) { es.close(); moveOn("/tv/"); }
    });
    void opened;
  }

  function poll() {
    setText($("live-transport"), "(polling)");
    var url = live.url + "?since=" + moves.length;
    fetch(url, { headers: { Accept: "application/json" } })
      .then(function (response) {
        if (response.status === 404) {
          // The live row goes a few minutes after its match ended: the match page has the replay.
          live.gone = true;
          setStatus("over", "finished");
          $("replay-link").innerHTML = '&middot; <a href="/matches/' + live.match + '/">the match and its replays</a>';
          return null;
        }
        return response.ok ? response.json() : null;
      })
      .then(function (game) {
        if (!game) return;
        addMoves(game.moves);
        if (game.status === "running" && moves.length) {
          var clock = { S: data.base_ms, N: data.base_ms };
          moves.forEach(function (m) { clock[m.side] = m.clock_ms; });
          var side = String(moves[moves.length - 1].position).split(/\s+/)[1];
          if (!ticking || ticking.ply !== moves.length) {
            ticking = { S: clock.S, N: clock.N, side: side, since: performance.now(), ply: moves.length };
          }
        }
        if (game.status !== "running" && live.status === "running") gameEnded(game);
        live.status = game.status;
        if (game.status === "running") setStatus("running", "running");
        if (game.game && !live.game) { live.game = game.game; replayLink(game.game); }
      })
      .catch(function () { /* a missed poll is retried on the next tick */ })
      .then(function () {
        if (live.gone) return;
        if (live.status === "running" || !live.game) {
          if (live.status !== "running" && (live.tv || live.match_running)) {
            moveOn(live.tv ? "/tv/" : "/live/" + live.id + "/"); // the next game, if any
            return;
          }
          setTimeout(poll, live.poll_ms);
        }
      });
  }

  var initial = /^#ply-(\d+)$/.exec(location.hash);
  show(initial ? Number(initial[1]) : state.ply);
  if (live) {
    setInterval(showTicking, 100);
    if (live.status !== "running" && !live.match_running) {
      // Over, and so is its match: nothing will come (the page says so).
    } else if (window.EventSource) stream();
    else setTimeout(poll, live.poll_ms);
  }
})();
