// memoryd web UI: the chat page (loaded by it after memoryd.js, whose csrfToken, t and tn it uses).
// Kept apart from memoryd.js because no other page needs it. No build step, no dependencies.
"use strict";

// The chat page talks to memoryd's own OpenAI-compatible proxy, streamed. While a reply
// streams it is plain text (textContent) and Stop ends it; once it is done the server
// renders it as Markdown, sanitised (POST /ui/markdown, as it renders recorded replies),
// and lists the memories the proxy injected (X-Memoryd-Memory-Ids) with the same
// template as under recorded replies (GET /chat/{slug}/used). So this script never turns
// model text into markup itself. A reply cut short (Stop, an upstream error, the length
// limit) keeps what arrived and says so. The incognito box sends X-Memoryd-Incognito:
// true, so the chat is neither recorded nor learned from.

// The server's HTML for a reply's text (sanitised there); null when it could not be had.
async function rendered(text) {
  try {
    const response = await fetch("/ui/markdown", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "text/plain; charset=utf-8", "X-CSRF-Token": csrfToken() },
      body: text,
    });
    return response.ok ? await response.text() : null;
  } catch (error) { return null; }
}

// The page's own element parsed from the server's HTML (an inert <template> first).
function fromServer(html, selector) {
  const holder = document.createElement("template");
  holder.innerHTML = html;
  return holder.content.querySelector(selector);
}

async function usedMemories(workspace, ids) {
  const url = "/chat/" + encodeURIComponent(workspace) + "/used?ids=" + encodeURIComponent(ids.join(","));
  try {
    const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (response.ok) {
      const part = fromServer(await response.text(), ".used");
      if (part) return part;
    }
  } catch (error) { /* said below */ }
  const part = document.createElement("p");
  part.className = "used muted";
  part.textContent = tn("%(num)d memory used (reload the page to see which).", "%(num)d memories used (reload the page to see which).", ids.length);
  return part;
}

// The recorded exchange (from GET /api/v1/chats) with this prompt and answer that the
// page does not show yet; null if it was not recorded within a few seconds.
async function recordedChat(workspace, prompt, response, list) {
  const url = "/api/v1/chats?limit=20&workspace=" + encodeURIComponent(workspace);
  for (let wait = 50; wait < 6400; wait *= 2) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      const reply = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!reply.ok) return null;
      const chats = await reply.json();
      const found = chats.reverse().find((c) => c.prompt === prompt && c.response === response
        && !list.querySelector('[data-chat-id="' + c.id + '"]'));
      if (found) return found;
    } catch (error) { return null; }
  }
  return null;
}

// A new answer's Delete, from the page's template of it ({id}, {prompt:N}: the first N
// characters of the prompt, as the server cuts them).
function deleteForm(id, prompt) {
  const form = document.getElementById("delete-exchange").content.firstElementChild.cloneNode(true);
  const fill = (value) => value.replace(/\{(id|prompt:(\d+))\}/g, (_, what, n) =>
    what === "id" ? String(id) : Array.from(prompt).slice(0, Number(n)).join(""));
  for (const node of [form, ...form.querySelectorAll("*")]) {
    for (const name of ["action", "data-confirm", "aria-label"]) {
      if (node.hasAttribute(name)) node.setAttribute(name, fill(node.getAttribute(name)));
    }
  }
  return form;
}

// Why a reply ended early, in words, shown under it.
function cutMarker(kind, detail) {
  const words = {
    stopped: t("Stopped: you stopped this reply. It was not recorded."),
    length: t("Cut off: the reply reached the model's length limit."),
    error: t("Cut off: %(error)s. It was not recorded.", { error: detail }),
  }[kind];
  const marker = document.createElement("p");
  marker.className = "cut-marker";
  marker.dataset.cut = kind;
  marker.textContent = words;
  return marker;
}

// The lines of an event stream: calls `each` with every JSON event, returns how it ended
// ("done", "length" for a length cut, or throws the stream's error).
async function readStream(response, each) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let ending = "done";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split("\n");
    buffer = lines.pop();
    for (const line of lines) {
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (data === "[DONE]") continue;
      const chunk = JSON.parse(data);
      if (chunk.error) throw new Error(chunk.error.message || t("the upstream broke off"));
      const choice = chunk.choices && chunk.choices[0];
      if (choice && choice.finish_reason === "length") ending = "length";
      if (choice && choice.delta && choice.delta.content) each(choice.delta.content);
    }
  }
  return ending;
}

function setupChat() {
  const form = document.getElementById("chat-form");
  if (!form) return;
  const send = form.querySelector("button[type=submit]");
  send.disabled = false;  // off in the page: it needs this script
  const stop = document.getElementById("chat-stop");
  const input = document.getElementById("chat-input");
  const list = document.getElementById("messages");
  const status = document.getElementById("chat-status");
  const incognito = document.getElementById("chat-incognito");
  const workspace = form.dataset.workspace;
  let streaming = null;  // the AbortController of the reply streaming now

  function bubble(role, text) {
    const item = document.createElement("li");
    item.className = "message " + role;
    item.dataset.role = role;
    const body = document.createElement("div");
    body.className = "message-text";
    body.textContent = text;
    item.appendChild(body);
    list.appendChild(item);
    item.scrollIntoView({ block: "end" });
    return item;
  }

  // What the model is sent as the conversation so far: replies as they were written
  // (their Markdown), not as shown.
  function history() {
    return Array.from(list.querySelectorAll("[data-role]"))
      .filter((m) => !m.classList.contains("error"))
      .slice(-20)
      .map((m) => ({
        role: m.dataset.role,
        content: m.dataset.raw !== undefined ? m.dataset.raw : m.querySelector(".message-text").textContent,
      }));
  }

  function markIncognito(item) {
    item.classList.add("incognito");
    const badge = document.createElement("span");
    badge.className = "badge incognito-badge";
    badge.textContent = t("incognito: not recorded");
    item.appendChild(badge);
  }

  // A recorded exchange gets the controls the page gives the ones it came with: its
  // Delete, and the page's Clear history counts it. The server writes the exchange just
  // after the answer ends, so its id is looked up once it is there.
  async function addControls(answer, prompt, response) {
    const chat = await recordedChat(workspace, prompt, response, list);
    if (!chat) return;
    answer.dataset.chatId = String(chat.id);
    answer.appendChild(deleteForm(chat.id, prompt));
    const clear = document.getElementById("clear-history");
    if (clear) {
      const count = Number(clear.dataset.count || 0) + 1;
      clear.dataset.count = String(count);
      clear.dataset.confirm = tn(
        "Delete your %(num)d exchange in %(name)s? Its text is erased and memoryd will not learn from it; memories it already learned stay.",
        "Delete all %(num)d of your exchanges in %(name)s? Their text is erased and memoryd will not learn from them; memories it already learned stay.",
        count, { name: clear.dataset.workspaceName });
      clear.hidden = false;
    }
  }

  function streamingNow(controller) {
    streaming = controller;
    send.hidden = Boolean(controller);
    stop.hidden = !controller;
    if (controller) stop.focus();
  }

  stop.addEventListener("click", () => { if (streaming) streaming.abort(); });

  if (incognito) {
    incognito.addEventListener("change", () => form.classList.toggle("incognito", incognito.checked));
  }

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || streaming) return;
    const empty = document.getElementById("chat-empty");
    if (empty) empty.remove();
    const secret = Boolean(incognito && incognito.checked);
    const messages = [...history(), { role: "user", content: text }];
    const asked = bubble("user", text);
    input.value = "";
    const answer = bubble("assistant", "");
    const answerText = answer.querySelector(".message-text");
    const controller = new AbortController();
    streamingNow(controller);
    status.textContent = t("Thinking…");
    const headers = {
      "Content-Type": "application/json",
      "X-CSRF-Token": csrfToken(),
      "X-Memoryd-Workspace": workspace,
    };
    if (secret) headers["X-Memoryd-Incognito"] = "true";
    let reply = "";
    let ids = [];
    let cut = null;
    try {
      const response = await fetch("/v1/chat/completions", {
        method: "POST",
        credentials: "same-origin",
        headers,
        body: JSON.stringify({ model: form.dataset.model, stream: true, messages }),
        signal: controller.signal,
      });
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        throw new Error((body.error && body.error.message) || ("HTTP " + response.status));
      }
      ids = (response.headers.get("X-Memoryd-Memory-Ids") || "").split(",").filter(Boolean);
      status.textContent = t("Answering…");
      const ending = await readStream(response, (piece) => { reply += piece; answerText.textContent = reply; });
      if (ending === "length") cut = cutMarker("length");
    } catch (error) {
      if (controller.signal.aborted) cut = cutMarker("stopped");
      else if (reply) cut = cutMarker("error", error.message);
      else {  // nothing arrived: the whole answer is the error
        answer.classList.add("error");
        answerText.textContent = t("Error: %(error)s", { error: error.message });
      }
    }
    streamingNow(null);
    status.textContent = "";
    input.focus();
    if (answer.classList.contains("error")) return;
    answer.dataset.raw = reply;
    const html = await rendered(reply);
    if (html !== null) {
      answerText.innerHTML = html;  // sanitised by the server (memoryd.server.web.markdown)
      answerText.classList.add("markdown");
    }
    if (cut) answer.appendChild(cut);
    answer.appendChild(await usedMemories(workspace, ids));
    if (secret) { markIncognito(asked); markIncognito(answer); status.textContent = t("Incognito: this chat was not recorded."); }
    // recorded: a whole reply, or one the length limit ended (a stopped or broken one is not)
    if (!secret && (!cut || cut.dataset.cut === "length")) addControls(answer, text, reply);
  });
}

document.addEventListener("DOMContentLoaded", setupChat);
