/* Tabletop Companion dashboard shell: fetch + EventSource, no build step. */
"use strict";
const Companion = (() => {
  const stringsNode = document.getElementById("strings");
  const T = stringsNode ? JSON.parse(stringsNode.textContent) : {};
  async function api(method, path, body, prefix = "/api") {
    const init = { method, headers: {} };
    const csrf = document.querySelector("meta[name=csrf-token]");
    if (method !== "GET" && csrf) init.headers["X-CSRF-Token"] = csrf.content;
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(prefix + path, init);
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      const err = new Error((data.error && data.error.message) || response.statusText);
      err.code = data.error && data.error.code;
      throw err;
    }
    return data;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "onclick") node.addEventListener("click", value);
      else node.setAttribute(key, value);
    }
    for (const child of children) node.append(child);
    return node;
  }

  function describe(entry) {
    const p = entry.payload || {};
    if (entry.kind === "command" || entry.kind === "correction") {
      const c = p.command || {};
      const args = Object.keys(c.args || {}).length ? " " + JSON.stringify(c.args) : "";
      const events = (p.events || []).map((e) => e.kind).join(", ");
      return `${c.name}${args}${events ? " → " + events : ""}`;
    }
    if (entry.kind === "undo") return `${T.undo_of} #${p.target}`;
    if (entry.kind === "reading") return `${T.reading_from} ${p.source}: ${p.command && p.command.name} ${JSON.stringify((p.command || {}).args || {})}${p.needs_review ? ` (${T.needs_review})` : ""}`;
    if (entry.kind === "dismiss") return `#${p.reading} ${T.dismissed}`;
    return entry.kind;
  }

  function follow(sessionId, after, feed, onEntry) {
    const source = new EventSource(`/api/sessions/${sessionId}/stream?after=${after}`);
    source.addEventListener("entry", (message) => {
      const entry = JSON.parse(message.data);
      feed.prepend(el("li", { "data-seq": entry.seq },
        el("span", { class: "seq" }, "#" + entry.seq), " ",
        el("span", { class: "actor" }, entry.actor), " ", describe(entry)));
      while (feed.children.length > 200) feed.lastChild.remove();
      if (onEntry) onEntry(entry);
    });
    return source;
  }

  function joinPage() {
    const form = document.getElementById("join");
    const fromQr = /pin=(\d+)/.exec(location.hash);  // the host screen's QR code carries the PIN
    if (fromQr) form.pin.value = fromQr[1];
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await api("POST", "/join", { pin: form.pin.value, role: form.role.value });
        location.reload();
      } catch (err) {
        document.getElementById("join-error").textContent = err.message;
      }
    });
  }

  function hostPage() {
    const button = document.getElementById("calibrate-spinner");
    const result = document.getElementById("calibrate-result");
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        const reply = await api("POST", "/hardware/spinner/calibrate", {});
        result.textContent = `${T.calibrated} (offset_steps = ${reply.offset_steps})`;
      } catch (err) {
        result.textContent = err.message;
      }
      button.disabled = false;
    });
  }

  function header() {
    const leave = document.getElementById("leave");
    if (leave) leave.addEventListener("click", async () => {
      await api("POST", "/leave", {});
      location.href = "/";
    });
  }

  function lobby() {
    const form = document.getElementById("new-session");
    if (form) {
      const setups = [...form.querySelectorAll("fieldset[data-game]")];
      const active = () => setups.find((f) => f.dataset.game === form.game.value);
      // Shown at once too: the game may have been chosen (or restored by the browser) before
      // this script ran.
      const showActive = () => setups.forEach((f) => {
        const shown = f === active();
        f.hidden = !shown;
        f.disabled = !shown;
      });
      form.game.addEventListener("change", showActive);
      showActive();
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const error = document.getElementById("new-session-error");
        const setup = active();
        const seats = [...setup.querySelectorAll("[data-seat-row]")].map((row) => {
          const seat = {};
          row.querySelectorAll("input, select").forEach((field) => {
            const key = field.name.replace(/^seat-/, "");
            if (field.value.trim()) seat[key] = field.value.trim();
          });
          return seat;
        }).filter((seat) => seat.name);
        const options = {};
        for (const field of setup.querySelectorAll("[data-option]")) {
          let value;
          if (field.dataset.kind === "bool") value = field.checked;
          else if (field.dataset.values) value = JSON.parse(field.dataset.values)[Number(field.value)];
          else {
            try { value = JSON.parse(field.value); } catch (err) {
              error.textContent = `${T.bad_options} ${field.dataset.option}: ${err.message}`;
              return;
            }
          }
          if (JSON.stringify(value) !== field.dataset.default) options[field.dataset.option] = value;
        }
        const body = { game: form.game.value, seats, options };
        if (setup.querySelector("select[name=mode]")) body.mode = setup.querySelector("select[name=mode]").value;
        try {
          const snapshot = await api("POST", "/sessions", body);
          location.href = "/sessions/" + snapshot.session.id;
        } catch (err) {
          error.textContent = err.message;
        }
      });
    }
    const importForm = document.getElementById("import-session");
    if (importForm) {
      importForm.addEventListener("submit", async (event) => {
        event.preventDefault();
        const body = new FormData(importForm);
        const csrf = document.querySelector("meta[name=csrf-token]").content;
        const response = await fetch("/api/sessions/import", {
          method: "POST", body, headers: { "X-CSRF-Token": csrf } });
        const data = await response.json().catch(() => ({}));
        if (response.ok) location.href = "/sessions/" + data.session.id;
        else document.getElementById("import-error").textContent = (data.error || {}).message || response.statusText;
      });
    }
    let source = null;
    document.querySelectorAll("[data-follow]").forEach((button) => {
      button.addEventListener("click", () => {
        if (source) source.close();
        const feed = document.getElementById("feed");
        feed.replaceChildren();
        document.getElementById("feed-session").textContent = button.dataset.follow;
        source = follow(button.dataset.follow, 0, feed);
      });
    });
  }

  /* The world map's zoom and pan (the CPX board): pinch and drag on touch (a mouse drags too,
     a trackpad pinches), and the toolbar's − / + / whole map / region buttons, all by changing
     the SVG viewBox, so names and strokes grow with the map. The board fragment is replaced
     after every log entry: the view lives here and apply() puts it on the new map, and a
     gesture reads the map anew on every move, so one goes on across a redraw under the finger.
     A tap (one finger, no movement) picks the nearest base and calls onTap with its id. */
  function mapZoom(container, { storageKey = null, onTap = null } = {}) {
    const MAX_ZOOM = 6;  // the whole width over this many: Europe's names about 40 px tall
    const STEP = 1.5;  // one press of + or −
    const SLOP = 10;  // px a finger may wander and still tap
    const REACH = 24;  // px from a base's centre that a tap still picks it (dots are small)
    let view = null;  // {x, y, w, h} in map units, or null for the whole map
    try { view = storageKey ? JSON.parse(sessionStorage.getItem(storageKey)) : null; } catch (err) { view = null; }
    const pointers = new Map();  // pointerId → {x, y} in client pixels
    let gesture = null;
    let tapping = false;
    let frameRequest = 0;

    const svgNow = () => container.querySelector("svg.cpx-map[data-full]");
    const parse = (text) => {
      const [x, y, w, h] = String(text).trim().split(/[\s,]+/).map(Number);
      return { x, y, w, h };
    };
    const fullOf = (svg) => parse(svg.dataset.full);
    const round = (n) => Math.round(n * 10) / 10;

    /* A view inside the whole map, no closer than MAX_ZOOM, of the map's shape; null when it
       shows all of it. A view whose width had to change keeps its centre. */
    function clamp(v, full) {
      if (!v || ![v.x, v.y, v.w, v.h].every(Number.isFinite) || v.w <= 0) return null;
      const w = Math.min(full.w, Math.max(full.w / MAX_ZOOM, v.w));
      if (w >= full.w * 0.999) return null;
      const h = w * full.h / full.w;
      let x = v.x, y = v.y;
      if (w !== v.w || h !== v.h) { x = v.x + (v.w - w) / 2; y = v.y + (v.h - h) / 2; }
      x = Math.min(Math.max(x, full.x), full.x + full.w - w);
      y = Math.min(Math.max(y, full.y), full.y + full.h - h);
      return { x, y, w, h };
    }

    /* Pixels per map unit and the view's top-left corner on the screen (preserveAspectRatio
       "xMidYMid meet"). */
    function frame(rect, v) {
      const s = Math.min(rect.width / v.w, rect.height / v.h);
      return { s, left: rect.left + (rect.width - v.w * s) / 2, top: rect.top + (rect.height - v.h * s) / 2 };
    }
    function toMap(p, rect, v) {
      const f = frame(rect, v);
      return { x: v.x + (p.x - f.left) / f.s, y: v.y + (p.y - f.top) / f.s };
    }

    function apply() {
      frameRequest = 0;
      const svg = svgNow();
      if (!svg) return;
      const full = fullOf(svg);
      view = clamp(view, full);
      svg.setAttribute("viewBox", view ? [view.x, view.y, view.w, view.h].map(round).join(" ") : svg.dataset.full);
      const wrap = svg.closest(".cpx-map-wrap");
      if (wrap) wrap.classList.toggle("zoomed", Boolean(view));
      const closest = Boolean(view) && view.w <= (full.w / MAX_ZOOM) * 1.001;
      container.querySelectorAll("[data-zoom=in]").forEach((b) => { b.disabled = closest; });
      container.querySelectorAll("[data-zoom=out], [data-zoom=reset]").forEach((b) => { b.disabled = !view; });
      container.querySelectorAll("[data-zoom-to]").forEach((b) => {
        const preset = clamp(parse(b.dataset.zoomTo), full);
        const same = Boolean(view && preset) && ["x", "y", "w", "h"].every((k) => Math.abs(view[k] - preset[k]) < 0.5);
        b.setAttribute("aria-pressed", String(same));
      });
      if (storageKey) {
        try { sessionStorage.setItem(storageKey, JSON.stringify(view)); } catch (err) { /* private mode: kept for this page only */ }
      }
    }
    const draw = () => { if (!frameRequest) frameRequest = requestAnimationFrame(apply); };

    /* Zoom by k about a map point, which stays where it is on the screen. */
    function zoomAbout(k, p, v) {
      view = { x: p.x - (p.x - v.x) / k, y: p.y - (p.y - v.y) / k, w: v.w / k, h: v.h / k };
    }

    /* The base nearest to a point on the screen, within reach of its dot. */
    function baseAt(p) {
      const svg = svgNow();
      if (!svg) return null;
      const full = fullOf(svg);
      const v = clamp(view, full) || full;
      const rect = svg.getBoundingClientRect();
      const at = toMap(p, rect, v);
      const reach = Math.max(12, REACH / frame(rect, v).s);
      let best = null, distance = Infinity;
      svg.querySelectorAll("g.base[data-base]").forEach((g) => {
        const d = Math.hypot(Number(g.dataset.x) - at.x, Number(g.dataset.y) - at.y);
        if (d < distance) { best = g; distance = d; }
      });
      return best && distance <= reach ? best.dataset.base : null;
    }

    /* A gesture starts again whenever a finger comes or goes: from the view as it is, with the
       fingers where they are, so the map never jumps. */
    function begin(panning) {
      const svg = svgNow();
      if (!svg) { gesture = null; return; }
      const full = fullOf(svg);
      gesture = {
        full, start: clamp(view, full) || full, rect: svg.getBoundingClientRect(), panning,
        points: [...pointers.values()].map((p) => ({ ...p })), last: { ...[...pointers.values()][0] },
      };
    }

    function moved(event) {
      if (!gesture) return;
      const now = [...pointers.values()];
      const { start, rect, points } = gesture;
      if (now.length >= 2 && points.length >= 2) {  // pinch: zoom about the fingers' midpoint, which follows them
        const [a0, b0] = points, [a, b] = now;
        const d0 = Math.hypot(b0.x - a0.x, b0.y - a0.y), d = Math.hypot(b.x - a.x, b.y - a.y);
        const m0 = { x: (a0.x + b0.x) / 2, y: (a0.y + b0.y) / 2 }, m = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
        const anchor = toMap(m0, rect, start);
        const w = Math.min(gesture.full.w, Math.max(gesture.full.w / MAX_ZOOM, start.w * (d0 / Math.max(d, 1))));
        const h = w * start.h / start.w;
        const f = frame(rect, { w, h });
        view = { x: anchor.x - (m.x - f.left) / f.s, y: anchor.y - (m.y - f.top) / f.s, w, h };
        gesture.panning = true;
        tapping = false;
        draw();
        return;
      }
      const p = now[0], p0 = points[0];
      if (!gesture.panning && Math.hypot(p.x - p0.x, p.y - p0.y) < SLOP) return;
      gesture.panning = true;
      tapping = false;
      if (clamp(view, gesture.full) === null && event.pointerType !== "mouse") {
        /* the whole map takes every touch (touch-action: none): a drag scrolls the page, and
           the map sideways where it is wider than a phone */
        const wrap = container.querySelector(".cpx-map-wrap");
        if (wrap) wrap.scrollLeft -= p.x - gesture.last.x;
        window.scrollBy(0, -(p.y - gesture.last.y));
        gesture.last = { ...p };
        return;
      }
      const s = frame(rect, start).s;
      view = { x: start.x - (p.x - p0.x) / s, y: start.y - (p.y - p0.y) / s, w: start.w, h: start.h };
      draw();
    }

    container.addEventListener("pointerdown", (event) => {
      if (!event.target.closest || !event.target.closest("svg.cpx-map")) return;
      if (event.pointerType === "mouse" && event.button !== 0) return;
      if (event.pointerType === "mouse") event.preventDefault();  // no text selection, no image drag
      tapping = pointers.size === 0;
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      begin(pointers.size > 1);
    });
    window.addEventListener("pointermove", (event) => {
      if (!pointers.has(event.pointerId)) return;
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      moved(event);
    });
    const lifted = (event) => {
      if (!pointers.has(event.pointerId)) return;
      pointers.delete(event.pointerId);
      if (pointers.size) { begin(true); return; }  // a finger of a pinch lifted: the other pans on
      gesture = null;
      if (tapping && event.type === "pointerup" && onTap) {
        const base = baseAt({ x: event.clientX, y: event.clientY });
        if (base) onTap(base);
      }
      tapping = false;
    };
    window.addEventListener("pointerup", lifted);
    window.addEventListener("pointercancel", lifted);

    /* A trackpad's pinch arrives as a wheel with ctrlKey; a plain wheel scrolls the page. */
    container.addEventListener("wheel", (event) => {
      const svg = event.ctrlKey && event.target.closest && event.target.closest("svg.cpx-map");
      if (!svg) return;
      event.preventDefault();
      const full = fullOf(svg);
      const v = clamp(view, full) || full;
      zoomAbout(Math.exp(-event.deltaY / 100), toMap({ x: event.clientX, y: event.clientY }, svg.getBoundingClientRect(), v), v);
      draw();
    }, { passive: false });

    container.addEventListener("click", (event) => {
      const button = event.target.closest("[data-zoom], [data-zoom-to]");
      const svg = svgNow();
      if (!button || !svg) return;
      const full = fullOf(svg);
      const v = clamp(view, full) || full;
      if (button.dataset.zoomTo) view = parse(button.dataset.zoomTo);
      else if (button.dataset.zoom === "reset") view = null;
      else zoomAbout(button.dataset.zoom === "in" ? STEP : 1 / STEP, { x: v.x + v.w / 2, y: v.y + v.h / 2 }, v);
      apply();
    });

    apply();
    return { apply };
  }

  function table() {
    const root = document.getElementById("table");
    const sessionId = root.dataset.session;
    const role = root.dataset.role;
    const errorBox = document.getElementById("action-error");
    let snapshot = null;
    let instructions = {};  // pending AI moves in this tablet's language, by reading
    let countdown = null;
    const drawnReadings = new Map();  // seq → {key: what its node was drawn from, node}
    const drawnActions = new WeakMap();  // a node of the actions panel → the HTML it was drawn from
    const recounts = new WeakMap();  // a count form → its totals, limits and submit check again
    let selected = null;  // the base tapped on the map: only the moves that name it are shown
    const autoOpened = new Set();  // folded groups a tap opened; clearing the base folds them again
    const boardBox = document.getElementById("board");
    const actionsBox = document.getElementById("actions");

    const show = (err) => { errorBox.textContent = err ? err.message : ""; };
    const zoom = mapZoom(boardBox, {
      storageKey: `map-view:${sessionId}`,
      onTap: (base) => select(selected === base ? null : base),
    });

    /* Redraw from the server, one redraw at a time: entries that arrive meanwhile (a page
       load replays the whole log) ask for one more, so a tablet draws the latest state once
       or twice rather than once per entry, and never an older answer over a newer one. The
       promise settles when what was asked for is drawn; data-refreshing marks the wait. */
    let refreshing = null;
    let again = false;
    function refresh() {
      if (refreshing) { again = true; return refreshing; }
      root.dataset.refreshing = "";
      refreshing = (async () => {
        try {
          do { again = false; await redraw(); } while (again);
        } finally {
          refreshing = null;
          delete root.dataset.refreshing;
        }
      })();
      return refreshing;
    }

    /* The session and its drawn parts are two answers: a change landing between them would
       draw one state's board and buttons under another's state id (a tap would then be sent
       as if made on the newer state), so both are asked again until they are of one state. */
    async function redraw() {
      let fresh, view;
      for (let tries = 1; ; tries++) {
        [fresh, view] = await Promise.all([
          api("GET", `/sessions/${sessionId}`), api("GET", `/sessions/${sessionId}/view`, undefined, "")]);
        if (fresh.state_id === view.state_id) break;
        if (tries === 10) { again = true; break; }  // changing faster than drawn: draw, then again
      }
      snapshot = fresh;
      instructions = view.instructions || {};
      boardBox.innerHTML = view.board;
      zoom.apply();  // before the next paint: the new map shows the same part of the world
      drawActions(view.actions);
      filterByBase();
      render();
    }

    /* The actions panel, drawn again from the server's fragment: each part of it (the buttons,
       each count form) keeps its node when it is drawn from the same HTML as before, so a tap
       never lands on a node that is being replaced. A count form being filled in keeps what
       was entered (and the input its focus) when the new fragment has the same form, by its
       data-form-key, even if its title or quick picks changed; a changed form of the same
       command gets the values that still fit its ranges. A form that was sent starts afresh.
       Kept nodes are never moved unless the order changed, so a focused input stays focused. */
    function drawActions(html) {
      const open = [...actionsBox.querySelectorAll("details[data-group][open]")].map((d) => d.dataset.group);
      const focused = document.activeElement;
      const template = document.createElement("template");
      template.innerHTML = html;
      const old = [...actionsBox.children];
      const spare = new Set(old.filter((node) => !(node.matches("form") && "sent" in node.dataset)));
      const take = (test) => {
        const found = old.find((node) => spare.has(node) && test(node));
        if (found) spare.delete(found);
        return found;
      };
      const isForm = (node) => node.matches("form[data-form-key]");
      const fresh = [];  // new count forms, to be set going once they are in the page
      const wanted = [...template.content.children].map((node) => {
        const drawn = node.outerHTML;
        const same = take((o) => drawnActions.get(o) === drawn);
        if (same) return same;
        drawnActions.set(node, drawn);
        if (!isForm(node)) return node;
        const before = take((o) => isForm(o) && o.dataset.formKey === node.dataset.formKey);
        if (before) {  // the same form, other words around it: keep the node and what is in it
          refit(before, node);
          drawnActions.set(before, drawn);
          return before;
        }
        const like = take((o) => isForm(o) && formFamily(o) === formFamily(node));
        if (like && "touched" in like.dataset) carryCounts(like, node);
        fresh.push([node, like]);
        return node;
      });
      const note = actionsBox.querySelector(":scope > .base-filter");  // filterByBase's own
      if (note) wanted.unshift(note);
      old.forEach((node) => { if (!wanted.includes(node)) node.remove(); });
      wanted.forEach((node, i) => {
        if (actionsBox.children[i] !== node) actionsBox.insertBefore(node, actionsBox.children[i] || null);
      });
      open.forEach((name) => {  // a group the player opened stays open across redraws
        const group = actionsBox.querySelector(`details[data-group="${name}"]`);
        if (group) group.open = true;
      });
      fresh.forEach(([form, like]) => {
        countForm(form);
        const input = like && focused && like.contains(focused) && focused.name && countInput(form, focused.name);
        if (input) input.focus();  // the replaced form had it: typing goes on here
      });
    }

    /* Which command a form makes (name, seat, fixed args): forms of one family may differ in
       their ranges and limits, as a recruit form does when the money changed. */
    function formFamily(form) {
      const spec = JSON.parse(form.dataset.countForm);
      return JSON.stringify([spec.name, spec.seat, spec.fixed, spec.within]);
    }

    /* The same form (same key: same inputs, ranges and limits) drawn with other words or quick
       picks: those are taken from the fresh one, the inputs (and what is typed) stay. */
    function refit(kept, fresh) {
      const counts = kept.querySelector(":scope > .counts");
      const names = [...fresh.querySelectorAll(":scope > .counts .count-name")];
      counts.querySelectorAll(".count-name").forEach((span, i) => {
        if (names[i] && span.textContent !== names[i].textContent) span.textContent = names[i].textContent;
      });
      ["data-count-form", "data-bases"].forEach((name) => {
        if (fresh.hasAttribute(name)) kept.setAttribute(name, fresh.getAttribute(name));
        else kept.removeAttribute(name);
      });
      [...kept.children].forEach((child) => { if (child !== counts) child.remove(); });
      let after = false;
      [...fresh.children].forEach((child) => {
        if (child.matches(".counts")) after = true;
        else if (after) kept.append(child);
        else counts.before(child);
      });
      recounts.get(kept)();
    }

    const countInput = (form, name) => form.querySelector(`input[type=number][name="${CSS.escape(name)}"]`);

    /* What was entered in a form that changed, into the new one where it still fits. */
    function carryCounts(from, to) {
      let carried = false;
      to.querySelectorAll("input[type=number]").forEach((input) => {
        const was = countInput(from, input.name);
        const value = was ? Number(was.value) : NaN;
        if (was && was.value !== "" && Number.isInteger(value)
            && value >= Number(input.min) && value <= Number(input.max)) {
          input.value = String(value);
          carried = true;
        }
      });
      if (carried) to.dataset.touched = "";
    }

    /* Pick a base (or none): the map marks it, and the buttons, forms and offers that name
       other places hide (those that name none, such as ending the moves, stay). */
    function select(base) {
      selected = base;
      if (!selected) {
        autoOpened.forEach((name) => {
          const group = actionsBox.querySelector(`details[data-group="${name}"]`);
          if (group) group.open = false;
        });
        autoOpened.clear();
      }
      filterByBase();
      if (selected) {  // what is left of a folded group is few: show it without another tap
        actionsBox.querySelectorAll("details[data-group]").forEach((group) => {
          if (!group.hidden && !group.open) { group.open = true; autoOpened.add(group.dataset.group); }
        });
      }
    }

    /* Apply the picked base to the freshly drawn board and actions. */
    function filterByBase() {
      const mark = selected && [...boardBox.querySelectorAll(".cpx-map g.base")].find((g) => g.dataset.base === selected);
      if (selected && !mark) selected = null;  // not a place on this board
      const related = new Set();
      document.querySelectorAll("#actions [data-bases], #board tr[data-bases]").forEach((node) => {
        const bases = node.dataset.bases.split(" ");
        node.hidden = Boolean(selected) && !bases.includes(selected);
        if (selected && !node.hidden) bases.forEach((b) => related.add(b));
      });
      boardBox.querySelectorAll(".cpx-map g.base").forEach((g) => {
        g.classList.toggle("selected", g.dataset.base === selected);
        g.classList.toggle("related", Boolean(selected) && g.dataset.base !== selected && related.has(g.dataset.base));
      });
      boardBox.querySelectorAll(".odds-panel").forEach((panel) => {
        panel.hidden = Boolean(selected) && !panel.querySelector("tr[data-bases]:not([hidden])");
      });
      actionsBox.querySelectorAll("details[data-group]").forEach((group) => {
        const items = [...group.querySelectorAll("button[data-command]")];
        const shown = items.filter((b) => !b.hidden).length;
        const count = group.querySelector(".group-count");
        if (count) count.textContent = shown === items.length ? String(items.length) : `${shown}/${items.length}`;
        group.hidden = shown === 0;
      });
      let note = actionsBox.querySelector(".base-filter");
      if (!selected) { if (note) note.remove(); return; }
      if (!note) {
        note = el("p", { class: "base-filter", role: "status" }, el("span", {}),
          el("button", { type: "button", class: "secondary small", "data-clear-base": "" }, T.show_all));
        actionsBox.prepend(note);
      }
      note.firstChild.textContent = `${T.only_base} ${mark.dataset.name || selected}`;
    }

    /* A count form: steppers, running totals against each limit, quick picks, submit. A form
       someone changed is marked data-touched, one that was sent data-sent (drawActions). */
    function countForm(form) {
      const spec = () => JSON.parse(form.dataset.countForm);  // refit may give it new quick picks
      const inputs = [...form.querySelectorAll("input[type=number]")];
      const counts = () => Object.fromEntries(inputs.map((i) => [i.name, Number(i.value) || 0]));
      const update = () => {
        const now = counts();
        let ok = inputs.every((i) => Number.isInteger(Number(i.value))
          && Number(i.value) >= Number(i.min) && Number(i.value) <= Number(i.max));
        spec().limits.forEach((limit, index) => {
          const total = Object.entries(limit.weights).reduce((sum, [k, w]) => sum + w * (now[k] || 0), 0);
          const met = (limit.min === undefined || total >= limit.min) && (limit.max === undefined || total <= limit.max);
          const box = form.querySelector(`[data-limit="${index}"]`);
          box.querySelector("output").textContent = total;
          box.classList.toggle("unmet", !met);
          ok = ok && met;
        });
        form.querySelector("button[type=submit]").disabled = !ok;
      };
      recounts.set(form, update);
      form.addEventListener("click", (event) => {
        const step = event.target.closest("[data-step]");
        const preset = event.target.closest("[data-preset]");
        if (step) {
          const input = step.parentElement.querySelector("input");
          input.value = Math.max(Number(input.min), Math.min(Number(input.max), (Number(input.value) || 0) + Number(step.dataset.step)));
        } else if (preset) {
          const values = JSON.parse(preset.dataset.preset);
          inputs.forEach((i) => { i.value = values[i.name] || 0; });
        } else return;
        form.dataset.touched = "";
        update();
      });
      form.addEventListener("input", () => { form.dataset.touched = ""; update(); });
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const { name, seat, fixed, within } = spec();
        const args = { ...fixed };
        const now = counts();
        if (within) args[within] = now; else Object.assign(args, now);
        const command = { name, args };
        if (seat !== null) command.seat = seat;
        form.dataset.sent = "";  // the next redraw draws it afresh
        if (await send(command)) return;
        /* refused (another tablet was quicker, say): what was entered goes back into the same
           form if it is still offered and nobody has typed into it since */
        const again = [...actionsBox.querySelectorAll("form[data-form-key]")]
          .find((f) => f.dataset.formKey === form.dataset.formKey);
        if (!again) return;
        if (again === form) { delete form.dataset.sent; return; }
        if ("touched" in again.dataset) return;
        again.querySelectorAll("input[type=number]").forEach((input) => {
          if (input.name in now) input.value = String(now[input.name]);
        });
        again.dataset.touched = "";
        recounts.get(again)();
      });
      update();
    }

    function render() {
      root.dataset.stateId = snapshot.state_id;
      document.getElementById("status").textContent = snapshot.session.status;
      document.getElementById("outcome").textContent = snapshot.outcome ? `${T.game_over} ${snapshot.outcome.reason}` : "";
      document.getElementById("to-act").textContent = snapshot.to_act.length
        ? `${T.to_act} ${snapshot.to_act.join(", ")}` : (snapshot.outcome ? "" : T.waiting);
      document.getElementById("undo").disabled = !snapshot.can_undo || role === "spectator";
      renderReadings();
      renderDeadline();
    }

    /* Words and count names the board may add for the readings panel (a game's board
       fragment can carry them as JSON in .board-strings: {strings: {...}, names: {...}, order: [key, ...]}). */
    function boardStrings() {
      const node = document.querySelector("#board .board-strings");
      try { return node ? JSON.parse(node.textContent) : {}; } catch (err) { return {}; }
    }

    /* A count-shaped reading: its args are whole numbers, or hold one object of them (a drop's
       "counts"). Returns [key of that object or null, the counts], or null. */
    function countsOf(args) {
      const isCounts = (o) => o && typeof o === "object" && !Array.isArray(o) && Object.keys(o).length
        && Object.values(o).every((v) => Number.isInteger(v));
      if (isCounts(args)) return [null, args];
      const inner = Object.entries(args || {}).filter(([, v]) => isCounts(v));
      return inner.length === 1 ? inner[0] : null;
    }

    /* The readings panel, one node per waiting reading, each rebuilt only when what it shows
       changed (the reading, its instructions, the words and count names it uses): a correction
       being typed survives the redraw after every log entry (a new reading from another
       source too), and a tap never lands on a node that is being replaced. Kept nodes are
       never moved, so a focused input keeps its focus (and a tablet its keyboard). */
    function renderReadings() {
      const box = document.getElementById("readings");
      const extra = boardStrings();
      const words = { photo: "", beam: "beam", reasons: "", apply_correction: T.correct, ...(extra.strings || {}) };
      const names = extra.names || {};
      const order = extra.order || Object.keys(names);
      const items = Object.entries(snapshot.readings).map(([seq, reading]) => {
        const shape = countsOf(reading.command.args || {});
        const key = JSON.stringify([seq, reading, instructions[seq] || null, words,
          shape ? Object.keys(shape[1]).map((k) => [k, names[k] || null, order.indexOf(k)]) : null]);
        const kept = drawnReadings.get(seq);
        if (kept && kept.key === key) return kept.node;
        const node = readingNode(seq, reading, words, names, order);
        drawnReadings.set(seq, { key, node });
        return node;
      });
      [...drawnReadings.keys()].forEach((seq) => { if (!(seq in snapshot.readings)) drawnReadings.delete(seq); });
      const wanted = items.length ? items
        : [box.querySelector(":scope > .no-reading") || el("p", { class: "muted no-reading" }, T.no_reading)];
      [...box.children].forEach((child) => { if (!wanted.includes(child)) child.remove(); });
      wanted.forEach((node, i) => {  // insert what is new where it goes; kept nodes stay put
        if (box.children[i] !== node) box.insertBefore(node, box.children[i] || null);
      });
    }

    /* One waiting reading: what was read, its photo, and confirm, correct or dismiss. */
    function readingNode(seq, reading, words, names, order) {
      const detail = reading.detail || {};
      const args = reading.command.args || {};
      const node = el("div", { class: "reading", "data-reading": seq, "data-source": reading.source });
      const told = instructions[seq] || detail.instructions;
      node.append(el("p", {}, told
        ? `${reading.source}: ${told}`
        : `${reading.source}: ${reading.command.name} · ${T.confidence} ${Math.round(reading.confidence * 100)}%`
          + (detail.beam_count !== undefined && detail.beam_count !== null ? ` · ${words.beam} ${detail.beam_count}` : "")
          + (reading.problem ? ` · ${reading.problem.message}` : "")));
      const photo = detail.annotated || detail.photo || reading.media;
      if (photo) {
        node.append(el("figure", { class: "reading-photo" },
          el("img", { src: `/api/media/${photo}`, alt: words.photo, loading: "lazy" }),
          el("figcaption", {}, words.photo)));
      }
      if (Array.isArray(detail.reasons) && detail.reasons.length) {
        node.append(el("ul", { class: "reading-reasons", "aria-label": words.reasons },
          ...detail.reasons.map((r) => el("li", {}, r))));
      }
      const confirm = el("button", { onclick: () => act(`/sessions/${sessionId}/readings/${seq}/confirm`, {}) }, T.confirm);
      const dismiss = el("button", { class: "secondary", onclick: () => act(`/sessions/${sessionId}/readings/${seq}/dismiss`, {}) }, T.dismiss);
      const shape = countsOf(args);
      if (shape) {
        /* A number per key instead of editing JSON: the corrected counts replace the read ones. */
        const [within, counts] = shape;
        const form = el("form", { class: "reading-form", "data-correct": seq });
        const rank = (k) => (order.includes(k) ? order.indexOf(k) : order.length);
        const total = el("output", {}, String(Object.values(counts).reduce((a, b) => a + b, 0)));
        if (words.counted) form.append(el("p", { class: "reading-total" }, `${words.counted}: `, total));
        for (const [key, value] of Object.entries(counts).sort(([a], [b]) => rank(a) - rank(b))) {
          const input = el("input", { type: "number", name: key, min: "0", value: String(value), inputmode: "numeric" });
          form.append(el("label", {}, el("span", { class: "count-name" }, names[key] || key), input));
        }
        form.append(el("button", { type: "submit", class: "secondary" }, words.apply_correction || T.correct));
        form.addEventListener("input", () => {  // the total as corrected so far, as it is typed
          total.textContent = String([...form.querySelectorAll("input")].reduce((sum, i) => sum + (Number(i.value) || 0), 0));
        });
        form.addEventListener("submit", (event) => {
          event.preventDefault();
          const fixed = Object.fromEntries([...form.querySelectorAll("input")].map((i) => [i.name, Number(i.value) || 0]));
          const corrected = within ? { ...args, [within]: fixed } : fixed;
          act(`/sessions/${sessionId}/readings/${seq}/correct`, { args: corrected });
        });
        node.append(form, confirm, dismiss);
      } else {
        node.append(confirm, el("button", { class: "secondary", onclick: () => {
          const text = prompt(T.corrected_args, JSON.stringify(args));
          if (text !== null) {
            try { act(`/sessions/${sessionId}/readings/${seq}/correct`, { args: JSON.parse(text) }); }
            catch (err) { show(err); }
          }
        } }, T.correct), dismiss);
      }
      return node;
    }

    function renderDeadline() {
      const box = document.getElementById("deadline");
      if (countdown) clearInterval(countdown);
      if (!snapshot.deadline) { box.textContent = ""; return; }
      const tick = () => {
        const left = Math.max(0, snapshot.deadline.at - Date.now() / 1000);
        const label = document.querySelector("#actions [data-deadline-label]");
        const what = label ? label.dataset.deadlineLabel : snapshot.deadline.command.name;
        box.textContent = `${what} ${T.in_seconds} ${left.toFixed(1)} s`;
      };
      tick();
      countdown = setInterval(tick, 100);
    }

    /* POST, show what went wrong if anything, and redraw; true when the server took it. */
    async function act(path, body) {
      let ok = false;
      try { await api("POST", path, body); show(null); ok = true; } catch (err) { show(err); }
      await refresh();
      return ok;
    }

    function send(command) {
      const stateId = snapshot ? snapshot.state_id : Number(root.dataset.stateId);
      return act(`/sessions/${sessionId}/commands`, { ...command, state_id: stateId });
    }

    document.querySelectorAll("[data-take-seat]").forEach((button) => {
      button.addEventListener("click", async () => {
        try {
          await api("POST", `/sessions/${sessionId}/seats/${button.dataset.takeSeat}`, {});
          location.reload();
        } catch (err) { show(err); }
      });
    });

    actionsBox.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-command]");
      if (button) send(JSON.parse(button.dataset.command));
      if (event.target.closest("[data-clear-base]")) select(null);
    });

    document.getElementById("undo").addEventListener("click", () =>
      act(`/sessions/${sessionId}/undo`, { state_id: snapshot.state_id }));

    const simulate = document.getElementById("simulate");
    if (simulate) simulate.addEventListener("click", () => act(`/sessions/${sessionId}/simulate`, {}));

    const typed = document.getElementById("typed-reading");
    if (typed) {
      typed.addEventListener("submit", (event) => {
        event.preventDefault();
        let args;
        try { args = JSON.parse(typed.args.value || "{}"); } catch (err) { show(err); return; }
        act(`/sessions/${sessionId}/readings`, {
          source: "typed", command: { name: typed.name.value, args, ...(typed.seat.value === "" ? {} : { seat: Number(typed.seat.value) }) },
          confidence: typed.needs_review.checked ? 0.5 : 1.0, needs_review: typed.needs_review.checked,
        });
      });
    }

    /* the panel as the page came: kept by the first redraw if unchanged, and usable before it */
    [...actionsBox.children].forEach((node) => drawnActions.set(node, node.outerHTML));
    actionsBox.querySelectorAll(":scope > form[data-count-form]").forEach(countForm);
    follow(sessionId, 0, document.getElementById("feed"), () => refresh().catch(show));
    filterByBase();
    refresh().catch(show);
  }

  function plot(name, points) {
    const ns = "http://www.w3.org/2000/svg";
    const values = points.map((p) => p.metrics[name]).filter((v) => typeof v === "number");
    const lo = Math.min(...values), hi = Math.max(...values);
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 300 60");
    svg.setAttribute("class", "plot");
    const line = document.createElementNS(ns, "polyline");
    const last = Math.max(1, points.length - 1);
    line.setAttribute("points", points.map((p, i) => {
      const v = p.metrics[name];
      const y = hi === lo ? 30 : 55 - ((v - lo) / (hi - lo)) * 50;
      return `${(i / last) * 300},${y}`;
    }).join(" "));
    svg.append(line);
    const cursor = document.createElementNS(ns, "line");
    cursor.setAttribute("class", "cursor");
    cursor.setAttribute("y1", "0");
    cursor.setAttribute("y2", "60");
    svg.append(cursor);
    return el("figure", { class: "plot-box", "data-metric": name }, svg,
      el("figcaption", {}, `${name}: ${lo}–${hi}`));
  }

  function replay() {
    const root = document.getElementById("replay");
    const sessionId = root.dataset.session;
    const slider = document.getElementById("position");
    const list = document.getElementById("timeline");
    let points = [];
    let pending = null;
    const board = document.getElementById("replay-board");
    const zoom = mapZoom(board, { storageKey: `map-view-replay:${sessionId}` });

    async function show(index) {
      index = Math.max(0, Math.min(points.length - 1, index));
      slider.value = index;
      const point = points[index];
      document.getElementById("position-label").textContent = `#${point.seq} ${point.kind} ${point.name}`;
      list.querySelectorAll("li").forEach((li) => li.classList.toggle("current", Number(li.dataset.index) === index));
      document.querySelectorAll(".plot .cursor").forEach((c) => {
        const x = (index / Math.max(1, points.length - 1)) * 300;
        c.setAttribute("x1", x); c.setAttribute("x2", x);
      });
      clearTimeout(pending);
      pending = setTimeout(async () => {
        const data = await api("GET", `/sessions/${sessionId}/replay/board?to=${point.seq}`, undefined, "");
        board.innerHTML = data.board;
        zoom.apply();
        root.dataset.shownSeq = data.seq;
      }, 120);
    }

    (async () => {
      points = await api("GET", `/sessions/${sessionId}/timeline`);
      slider.max = points.length - 1;
      list.replaceChildren(...points.map((p, i) => el("li", { "data-index": i, onclick: () => show(i) },
        el("span", { class: "seq" }, "#" + p.seq), " ", el("span", { class: "actor" }, p.actor), " ", `${p.kind} ${p.name}`)));
      const names = Object.keys(points[points.length - 1].metrics);
      document.getElementById("plots").replaceChildren(...names.map((n) => plot(n, points)));
      show(points.length - 1);
    })();
    slider.addEventListener("input", () => show(Number(slider.value)));
    document.getElementById("step-back").addEventListener("click", () => show(Number(slider.value) - 1));
    document.getElementById("step-forward").addEventListener("click", () => show(Number(slider.value) + 1));
  }

  document.addEventListener("DOMContentLoaded", header);
  return { api, joinPage, hostPage, lobby, table, replay };
})();
