/* Tabletop Companion dashboard shell: fetch + EventSource, no build step. */
"use strict";
const Companion = (() => {
  const stringsNode = document.getElementById("strings");
  const T = stringsNode ? JSON.parse(stringsNode.textContent) : {};
  async function api(method, path, body) {
    const init = { method, headers: {} };
    const csrf = document.querySelector("meta[name=csrf-token]");
    if (method !== "GET" && csrf) init.headers["X-CSRF-Token"] = csrf.content;
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch("/api" + path, init);
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
      const defaults = JSON.parse(document.getElementById("game-options").textContent);
      const showDefaults = () => {
        form.options.value = JSON.stringify(defaults[form.game.value] || {}, null, 1);
      };
      form.game.addEventListener("change", showDefaults);
      showDefaults();
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const error = document.getElementById("new-session-error");
        const seats = form.seats.value.split("\n").map((line) => line.trim()).filter(Boolean)
          .map((line) => {
            const [name, ...rest] = line.split(",").map((part) => part.trim());
            const seat = { name };
            for (const part of rest.filter(Boolean)) {
              const [key, value] = part.includes("=") ? part.split("=", 2).map((x) => x.trim()) : ["ai", part];
              seat[key] = value;
            }
            return seat;
          });
        let options;
        try { options = JSON.parse(form.options.value || "{}"); } catch (err) {
          error.textContent = `${T.bad_options} ${err.message}`;
          return;
        }
        const body = { game: form.game.value, seats, options };
        if (form.mode.value.trim()) body.mode = form.mode.value.trim();
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

  function table() {
    const root = document.getElementById("table");
    const sessionId = root.dataset.session;
    const role = root.dataset.role;
    const held = JSON.parse(root.dataset.held || "[]");
    const mayAct = (command) => role === "host"
      || (role === "player" && (command.seat === undefined || held.includes(command.seat)));
    const errorBox = document.getElementById("action-error");
    let snapshot = null;
    let countdown = null;

    const show = (err) => { errorBox.textContent = err ? err.message : ""; };

    async function refresh() {
      snapshot = await api("GET", `/sessions/${sessionId}`);
      render();
    }

    function render() {
      root.dataset.stateId = snapshot.state_id;
      document.getElementById("status").textContent = snapshot.session.status;
      document.getElementById("outcome").textContent = snapshot.outcome ? `${T.game_over} ${snapshot.outcome.reason}` : "";
      document.getElementById("summary").textContent = JSON.stringify(snapshot.state, null, 2);
      document.getElementById("to-act").textContent = snapshot.to_act.length
        ? `${T.to_act} ${snapshot.to_act.join(", ")}` : (snapshot.outcome ? "" : T.waiting);
      const actions = document.getElementById("actions");
      actions.replaceChildren(...snapshot.legal.filter(mayAct).map((command) => {
        const args = Object.keys(command.args).length ? " " + JSON.stringify(command.args) : "";
        const who = command.seat === undefined ? T.table : `${T.seat} ${command.seat}`;
        return el("button", { onclick: () => send(command) }, `${command.name}${args} (${who})`);
      }));
      document.getElementById("undo").disabled = !snapshot.can_undo || role === "spectator";
      renderReadings();
      renderDeadline();
    }

    function renderReadings() {
      const box = document.getElementById("readings");
      const items = Object.entries(snapshot.readings).map(([seq, reading]) => el("div", { class: "reading" },
        el("p", {}, reading.detail && reading.detail.instructions
          ? `${reading.source}: ${reading.detail.instructions}`
          : `${reading.source}: ${reading.command.name} ${JSON.stringify(reading.command.args)} · ${T.confidence} ${Math.round(reading.confidence * 100)}%`
            + (reading.problem ? ` · ${reading.problem.message}` : "")),
        el("button", { onclick: () => act(`/sessions/${sessionId}/readings/${seq}/confirm`, {}) }, T.confirm),
        el("button", { class: "secondary", onclick: () => {
          const text = prompt(T.corrected_args, JSON.stringify(reading.command.args));
          if (text !== null) {
            try { act(`/sessions/${sessionId}/readings/${seq}/correct`, { args: JSON.parse(text) }); }
            catch (err) { show(err); }
          }
        } }, T.correct),
        el("button", { class: "secondary", onclick: () => act(`/sessions/${sessionId}/readings/${seq}/dismiss`, {}) }, T.dismiss)));
      box.replaceChildren(...(items.length ? items : [el("p", { class: "muted" }, T.no_reading)]));
    }

    function renderDeadline() {
      const box = document.getElementById("deadline");
      if (countdown) clearInterval(countdown);
      if (!snapshot.deadline) { box.textContent = ""; return; }
      const tick = () => {
        const left = Math.max(0, snapshot.deadline.at - Date.now() / 1000);
        box.textContent = `${snapshot.deadline.command.name} ${T.in_seconds} ${left.toFixed(1)} s`;
      };
      tick();
      countdown = setInterval(tick, 100);
    }

    async function act(path, body) {
      try { await api("POST", path, body); show(null); } catch (err) { show(err); }
      await refresh();
    }

    function send(command) {
      return act(`/sessions/${sessionId}/commands`, { ...command, state_id: snapshot.state_id });
    }

    document.querySelectorAll("[data-take-seat]").forEach((button) => {
      button.addEventListener("click", async () => {
        try {
          await api("POST", `/sessions/${sessionId}/seats/${button.dataset.takeSeat}`, {});
          location.reload();
        } catch (err) { show(err); }
      });
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
          source: "typed", command: { name: typed.name.value, args },
          confidence: typed.needs_review.checked ? 0.5 : 1.0, needs_review: typed.needs_review.checked,
        });
      });
    }

    follow(sessionId, 0, document.getElementById("feed"), () => refresh().catch(show));
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
        const data = await api("GET", `/sessions/${sessionId}/replay?to=${point.seq}`);
        document.getElementById("replay-state").textContent = JSON.stringify(data.state, null, 2);
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
