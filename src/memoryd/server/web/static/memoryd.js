// memoryd web UI: the profile panel, tabs, confirmations and the chat page. No build step.
"use strict";

function csrfToken() { return document.body.dataset.csrf || ""; }

function openProfile(tab) {
  const dialog = document.getElementById("profile");
  if (!dialog) return;
  if (dialog.open) dialog.close();
  dialog.showModal();
  if (tab) selectTab(tab);
}

function selectTab(name) {
  document.querySelectorAll("#profile [role=tab]").forEach((tab) => {
    const selected = tab.id === "tab-" + name;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    document.getElementById(tab.getAttribute("aria-controls")).hidden = !selected;
  });
}

function setupProfile() {
  const button = document.getElementById("user-button");
  if (button) button.addEventListener("click", () => openProfile());
  const dialog = document.getElementById("profile");
  if (!dialog) return;
  if (document.body.dataset.panel) {  // reopened after a form in the panel was sent
    dialog.removeAttribute("open");
    openProfile(document.body.dataset.panel);
  }
  dialog.querySelectorAll("[data-close]").forEach((b) => b.addEventListener("click", () => dialog.close()));
  const tabs = Array.from(dialog.querySelectorAll("[role=tab]"));
  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => selectTab(tab.id.slice(4)));
    tab.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const next = tabs[(index + step + tabs.length) % tabs.length];
      next.focus();
      selectTab(next.id.slice(4));
    });
  });
}

function setupConfirmations() {
  document.querySelectorAll("form[data-confirm]").forEach((form) => {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  });
}

// The chat page talks to memoryd's own OpenAI-compatible proxy, streamed.
function setupChat() {
  const form = document.getElementById("chat-form");
  if (!form) return;
  const input = document.getElementById("chat-input");
  const list = document.getElementById("messages");
  const status = document.getElementById("chat-status");

  function bubble(role, text) {
    const item = document.createElement("li");
    item.className = "message " + role;
    item.dataset.role = role;
    item.textContent = text;
    list.appendChild(item);
    item.scrollIntoView({ block: "end" });
    return item;
  }

  function history() {
    return Array.from(list.querySelectorAll("[data-role]"))
      .filter((m) => !m.classList.contains("error"))
      .slice(-20)
      .map((m) => ({ role: m.dataset.role, content: m.textContent }));
  }

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    const messages = [...history(), { role: "user", content: text }];
    bubble("user", text);
    input.value = "";
    const answer = bubble("assistant", "");
    const button = form.querySelector("button");
    button.disabled = true;
    status.textContent = "Thinking…";
    try {
      const response = await fetch("/v1/chat/completions", {
        method: "POST",
        credentials: "same-origin",
        headers: {
          "Content-Type": "application/json",
          "X-CSRF-Token": csrfToken(),
          "X-Memoryd-Workspace": form.dataset.workspace,
        },
        body: JSON.stringify({ model: form.dataset.model, stream: true, messages }),
      });
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        throw new Error((body.error && body.error.message) || ("HTTP " + response.status));
      }
      const used = response.headers.get("X-Memoryd-Memories") || "0";
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
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
          if (chunk.error) throw new Error(chunk.error.message);
          const delta = chunk.choices && chunk.choices[0] && chunk.choices[0].delta;
          if (delta && delta.content) answer.textContent += delta.content;
        }
      }
      status.textContent = "Answered using " + used + " memor" + (used === "1" ? "y" : "ies") + ".";
    } catch (error) {
      answer.classList.add("error");
      answer.textContent = "Error: " + error.message;
      status.textContent = "";
    } finally {
      button.disabled = false;
      input.focus();
    }
  });
}

document.addEventListener("DOMContentLoaded", () => {
  setupProfile();
  setupConfirmations();
  setupChat();
});
