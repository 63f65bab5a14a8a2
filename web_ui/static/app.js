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
      form.game.addEventListener("change", () => setups.forEach((f) => {
        const shown = f === active();
        f.hidden = !shown;
        f.disabled = !shown;
      }));
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

  function table() {
    const root = document.getElementById("table");
    const sessionId = root.dataset.session;
    const role = root.dataset.role;
    const errorBox = document.getElementById("action-error");
    let snapshot = null;
    let instructions = {};  // pending AI moves in this tablet's language, by reading
    let countdown = null;

    const show = (err) => { errorBox.textContent = err ? err.message : ""; };

    async function refresh() {
      const [fresh, view] = await Promise.all([
        api("GET", `/sessions/${sessionId}`), api("GET", `/sessions/${sessionId}/view`, undefined, "")]);
      snapshot = fresh;
      instructions = view.instructions || {};
      document.getElementById("board").innerHTML = view.board;
      const actions = document.getElementById("actions");
      const open = [...actions.querySelectorAll("details[data-group][open]")].map((d) => d.dataset.group);
      actions.innerHTML = view.actions;
      open.forEach((name) => {  // a group the player opened stays open across redraws
        const group = actions.querySelector(`details[data-group="${name}"]`);
        if (group) group.open = true;
      });
      document.querySelectorAll("#actions form[data-count-form]").forEach(countForm);
      render();
    }

    /* A count form: steppers, running totals against each limit, quick picks, submit. */
    function countForm(form) {
      const spec = JSON.parse(form.dataset.countForm);
      const inputs = [...form.querySelectorAll("input[type=number]")];
      const counts = () => Object.fromEntries(inputs.map((i) => [i.name, Number(i.value) || 0]));
      const update = () => {
        const now = counts();
        let ok = inputs.every((i) => Number.isInteger(Number(i.value))
          && Number(i.value) >= Number(i.min) && Number(i.value) <= Number(i.max));
        spec.limits.forEach((limit, index) => {
          const total = Object.entries(limit.weights).reduce((sum, [k, w]) => sum + w * (now[k] || 0), 0);
          const met = (limit.min === undefined || total >= limit.min) && (limit.max === undefined || total <= limit.max);
          const box = form.querySelector(`[data-limit="${index}"]`);
          box.querySelector("output").textContent = total;
          box.classList.toggle("unmet", !met);
          ok = ok && met;
        });
        form.querySelector("button[type=submit]").disabled = !ok;
      };
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
        update();
      });
      form.addEventListener("input", update);
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const args = { ...spec.fixed };
        const now = counts();
        if (spec.within) args[spec.within] = now; else Object.assign(args, now);
        const command = { name: spec.name, args };
        if (spec.seat !== null) command.seat = spec.seat;
        send(command);
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

    function renderReadings() {
      const box = document.getElementById("readings");
      const extra = boardStrings();
      const words = { photo: "", beam: "beam", reasons: "", apply_correction: T.correct, ...(extra.strings || {}) };
      const names = extra.names || {};
      const items = Object.entries(snapshot.readings).map(([seq, reading]) => {
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
          const order = extra.order || Object.keys(names);
          const rank = (k) => (order.includes(k) ? order.indexOf(k) : order.length);
          const total = Object.values(counts).reduce((a, b) => a + b, 0);
          if (words.counted) form.append(el("p", { class: "reading-total" }, `${words.counted}: ${total}`));
          for (const [key, value] of Object.entries(counts).sort(([a], [b]) => rank(a) - rank(b))) {
            const input = el("input", { type: "number", name: key, min: "0", value: String(value), inputmode: "numeric" });
            form.append(el("label", {}, el("span", { class: "count-name" }, names[key] || key), input));
          }
          form.append(el("button", { type: "submit", class: "secondary" }, words.apply_correction || T.correct));
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
      });
      box.replaceChildren(...(items.length ? items : [el("p", { class: "muted" }, T.no_reading)]));
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

    async function act(path, body) {
      try { await api("POST", path, body); show(null); } catch (err) { show(err); }
      await refresh();
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

    document.getElementById("actions").addEventListener("click", (event) => {
      const button = event.target.closest("button[data-command]");
      if (button) send(JSON.parse(button.dataset.command));
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
        const data = await api("GET", `/sessions/${sessionId}/replay/board?to=${point.seq}`, undefined, "");
        document.getElementById("replay-board").innerHTML = data.board;
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
