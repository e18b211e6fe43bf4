// Hermes Memory console: plain JavaScript, no library, nothing loaded from elsewhere.
// Every text a person reads comes from STRINGS (English and Chinese); every request goes to this console's own
// address with the page's one-time token; text from the store is only ever set as textContent.
"use strict";

const STRINGS = {
  en: {
    title: "Hermes Memory console", readOnlyBadge: "read-only: nothing can be changed", user: "User",
    chooseUser: "— choose a user —", language: "Language", tabMemories: "Memories", tabRecall: "Recall inspector",
    tabHealth: "Health", searchMemories: "Search memories", searchButton: "Search", showAll: "Show all",
    pickUserFirst: "Choose a user to see their memories.", memory: "Memory", history: "History", edit: "Edit",
    delete: "Delete", newText: "New text", whyChanged: "Why it changed (kept with the version)",
    saveVersion: "Save as new version", versions: "Versions, oldest first", exportSelected: "Export selected",
    removeSelected: "Remove selected", cancel: "Cancel", forgetHeading: "Erase this user",
    forgetExplain: "Erases every memory, version, session and index entry of the user from every file of the store. It cannot be undone.",
    forgetUser: "Forget this user", typeToConfirm: "Type the user id to confirm", forget: "Forget",
    askAsAgent: "Ask as the agent would", inspect: "Inspect recall",
    kind_facts: "Facts (permanent)", kind_profile: "Profile (long-term)", kind_said: "What was said, by session",
    kind_notes: "Notes (short-term)", none: "none", session: "session", noSession: "no session",
    created: "created", updated: "updated", importance: "importance", version: "version", source: "source",
    said_user: "the user said", said_assistant: "the assistant said", tier: "tier", kind: "kind", tags: "tags",
    id: "id", accessed: "times recalled", expires: "expires", metadata: "metadata",
    factMark: "permanent fact — shown to the console's operator", selectMemory: "Select memory",
    selected: (n) => `${n} selected`, results: (q, n) => `${n} result(s) for “${q}”`, noResults: "Nothing found.",
    score: "score", legs: "found by", keyword: "keywords", vector: "meaning (vectors)",
    changed: "changed", firstVersion: "first version", current: "current", note: "why",
    confirmDelete: "Delete this memory? It is never recalled again; its history stays.",
    deleted: "Deleted.", saved: (v) => `Saved as version ${v}.`,
    previewDelete: (n) => `These ${n} memories will be removed:`, previewExport: (n) => `These ${n} memories will be exported:`,
    confirmRemove: "Confirm removal", downloadExport: "Download export", exported: (n) => `Exported ${n} memories.`,
    erased: (r) => `Erased user ${r.user_id}: ${r.memories} memories, in ${r.seconds} s.`,
    erasureLeft: "Not finished yet: ", erasureDone: "Nothing of the user is left in the store's files.",
    gate: "Recall gate", gateYes: "triggered: the question asks for memory", gateNo: "not triggered: a greeting or filler",
    factRoute: "Fact route", routeYes: "yes: identity, configuration or compliance — permanent facts may come",
    routeNo: "no: permanent facts stay out", floor: "Floor (recall_min_score)", block: "The block the agent gets",
    emptyBlock: "(empty: the agent gets no memory block)", lines: "Recalled lines", why: "why",
    withheld: "Withheld by the read-time guard", leftOut: "Found by search but not recalled",
    nothing: "Why nothing came back", rank: "#", content: "content",
    total: "active memories", vectors: "vector points", versionsN: "versions", deletedN: "deleted (kept for history)",
    disk: "bytes on disk", growth: "Memories by day and tier", checks: "Checks", check: "check", status: "status",
    detail: "detail", byUser: "By user", memoriesN: "memories", scopeAll: "whole store", scopeUser: (u) => `user ${u}`,
    short_term: "short-term", long_term: "long-term", permanent: "permanent", loading: "Loading…",
    noUsers: "The store holds no memories yet.", pickUser: "Choose a user first.",
    check_store: "store", check_mode: "mode", check_vectors: "vectors", check_size: "size",
    "check_background work": "background work", status_ok: "ok", status_warn: "warn",
  },
  zh: {
    title: "Hermes 记忆控制台", readOnlyBadge: "只读：不能做任何修改", user: "用户",
    chooseUser: "— 选择用户 —", language: "语言", tabMemories: "记忆", tabRecall: "召回检查", tabHealth: "健康状况",
    searchMemories: "搜索记忆", searchButton: "搜索", showAll: "显示全部",
    pickUserFirst: "选择一个用户以查看其记忆。", memory: "记忆", history: "历史版本", edit: "编辑",
    delete: "删除", newText: "新内容", whyChanged: "修改原因（与版本一同保存）",
    saveVersion: "另存为新版本", versions: "各版本（从旧到新）", exportSelected: "导出所选",
    removeSelected: "移除所选", cancel: "取消", forgetHeading: "抹除该用户",
    forgetExplain: "从存储的每个文件中抹除该用户的全部记忆、版本、会话和索引条目，无法撤销。",
    forgetUser: "遗忘此用户", typeToConfirm: "输入用户 ID 以确认", forget: "遗忘",
    askAsAgent: "像智能体一样提问", inspect: "检查召回",
    kind_facts: "事实（永久）", kind_profile: "画像（长期）", kind_said: "对话内容（按会话）",
    kind_notes: "笔记（短期）", none: "无", session: "会话", noSession: "无会话",
    created: "创建于", updated: "更新于", importance: "重要度", version: "版本", source: "来源",
    said_user: "用户说", said_assistant: "助手说", tier: "层级", kind: "类别", tags: "标签",
    id: "ID", accessed: "被召回次数", expires: "过期时间", metadata: "元数据",
    factMark: "永久事实——仅向控制台操作者显示", selectMemory: "选择记忆",
    selected: (n) => `已选 ${n} 条`, results: (q, n) => `“${q}” 的结果：${n} 条`, noResults: "没有找到。",
    score: "得分", legs: "检索来源", keyword: "关键词", vector: "语义（向量）",
    changed: "已修改", firstVersion: "第一版", current: "当前", note: "原因",
    confirmDelete: "删除这条记忆？它将不再被召回，历史版本仍保留。",
    deleted: "已删除。", saved: (v) => `已保存为第 ${v} 版。`,
    previewDelete: (n) => `将移除以下 ${n} 条记忆：`, previewExport: (n) => `将导出以下 ${n} 条记忆：`,
    confirmRemove: "确认移除", downloadExport: "下载导出文件", exported: (n) => `已导出 ${n} 条记忆。`,
    erased: (r) => `已抹除用户 ${r.user_id}：${r.memories} 条记忆，用时 ${r.seconds} 秒。`,
    erasureLeft: "尚未完成：", erasureDone: "存储文件中不再留有该用户的任何数据。",
    gate: "召回门控", gateYes: "已触发：问题需要记忆", gateNo: "未触发：问候或客套话",
    factRoute: "事实路由", routeYes: "是：身份、配置或合规问题——可能带上永久事实",
    routeNo: "否：永久事实不会带上", floor: "阈值 (recall_min_score)", block: "智能体得到的记忆块",
    emptyBlock: "（空：智能体得不到记忆块）", lines: "召回的条目", why: "原因",
    withheld: "被读取时防护拦下", leftOut: "搜索到但未召回",
    nothing: "为什么什么都没有返回", rank: "#", content: "内容",
    total: "有效记忆", vectors: "向量点", versionsN: "版本数", deletedN: "已删除（保留历史）",
    disk: "磁盘字节数", growth: "按日期和层级统计的记忆", checks: "检查", check: "检查项", status: "状态",
    detail: "详情", byUser: "按用户", memoriesN: "条记忆", scopeAll: "整个存储", scopeUser: (u) => `用户 ${u}`,
    short_term: "短期", long_term: "长期", permanent: "永久", loading: "加载中…",
    noUsers: "存储中还没有记忆。", pickUser: "请先选择用户。",
    check_store: "存储", check_mode: "模式", check_vectors: "向量", check_size: "大小",
    "check_background work": "后台任务", status_ok: "正常", status_warn: "警告",
    reasons: {
      legs: (a) => `检索来源：${a.legs.replace("keyword", "关键词").replace("vector", "语义向量").replace(" and ", " 与 ")}`,
      standing: "关于回复方式的长期偏好：每一轮都会带上",
      fact_route: "事实路由：问题涉及身份、配置或合规",
      best_over_floor: (a) => `最佳匹配：置信度 ${a.confidence} ≥ 阈值 ${a.floor}`,
      near_best: "与最佳匹配足够接近（recall_relative_score）",
      floor_waived: (a) => `低于阈值（${a.confidence} < ${a.floor}）但仍放行：它回答了问题的主题，或问题问的是说过的话`,
      guard: "读取时防护认为它是对助手的指令",
      gate_off: "召回未运行：问候或客套话",
      no_route: "只有身份、配置或合规问题才会带上永久事实",
      short_note: "会话中的短期笔记：召回只返回长期记忆、对话和事实",
      best_below_floor: (a) => `最佳匹配的置信度 ${a.best} 低于阈值 ${a.floor}：召回不返回任何内容`,
      cut: "与最佳匹配不够接近，或超出 top_k",
      gate: "召回门控：问候或客套话不会触发长期召回",
      no_memories: (a) => `用户 ${a.user} 没有任何记忆`,
      no_match: "该用户没有与问题匹配的记忆",
      all_withheld: "所有匹配都被读取时防护拦下",
    },
  },
};
const TIERS = ["short_term", "long_term", "permanent"];
const TOKEN = document.querySelector('meta[name="hermes-token"]').content;
const READ_ONLY = document.querySelector('meta[name="hermes-read-only"]').content === "true";
const state = { lang: "en", user: "", view: "memories", open: null, selected: new Set(), search: "", bulk: null,
                historyOpen: false, editOpen: false };
// Each list and each opened memory takes a ticket: a slower, older answer never replaces a newer one.
const tickets = { list: 0, memory: 0 };
const $ = (id) => document.getElementById(id);

function reasonText(r) {
  const template = (STRINGS[state.lang].reasons || {})[r.code];
  if (template === undefined) return r.text;
  return typeof template === "function" ? template(r.args) : template;
}

function t(key, ...args) {
  const value = (STRINGS[state.lang] || STRINGS.en)[key] ?? STRINGS.en[key] ?? key;
  return typeof value === "function" ? value(...args) : value;
}

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "text") node.textContent = v;
    else if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}

async function api(path, body) {
  const init = { headers: { "X-Hermes-Token": TOKEN }, credentials: "same-origin" };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

function q(params) {
  return new URLSearchParams(params).toString();
}

function say(text) {
  $("status").textContent = text || "";
  $("error").hidden = true;
}

function fail(err) {
  $("error").textContent = String(err.message || err);
  $("error").hidden = false;
}

function when(ts) {
  if (ts === null || ts === undefined) return t("none");
  return new Date(ts * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

// ------------------------------------------------------------------ language
function applyLanguage() {
  document.documentElement.lang = state.lang === "zh" ? "zh-CN" : "en";
  document.title = t("title");
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  $("lang").value = state.lang;
  renderSelected();
}

// ------------------------------------------------------------------ users and views
async function loadInfo() {
  const info = await api("/api/info");
  $("store").textContent = `${info.location} · v${info.version}`;
  const select = $("user");
  const keep = state.user;
  select.replaceChildren(el("option", { value: "", "data-i18n": "chooseUser", text: t("chooseUser") }));
  for (const u of info.users) select.append(el("option", { value: u.user_id, text: `${u.user_id} (${u.memories})` }));
  if (info.users.some((u) => u.user_id === keep)) select.value = keep;
  else state.user = "";
  if (!info.users.length) say(t("noUsers"));
}

function showView(view) {
  state.view = view;
  for (const name of ["memories", "recall", "health"]) $(`view-${name}`).hidden = name !== view;
  for (const tab of document.querySelectorAll(".tab")) {
    if (tab.dataset.view === view) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
  if (view === "health") loadHealth().catch(fail);
}

async function pickUser(user) {
  state.user = user;
  state.open = null;
  state.search = "";
  state.selected.clear();
  state.historyOpen = state.editOpen = false;
  $("search").value = "";
  $("detail").hidden = true;
  $("preview").hidden = true;
  $("erasure-report").hidden = true;
  $("recall-out").replaceChildren();
  closeForget();
  if (!READ_ONLY) $("forget-section").hidden = !user;
  renderSelected();
  if (state.view === "health") await loadHealth();
  await loadList();
}

// ------------------------------------------------------------------ memory list
function memoryItem(m, extra) {
  const link = el("a", { href: `#memory-${m.id}`, "data-id": m.id, text: m.content, onclick: (e) => {
    e.preventDefault();
    openMemory(m.id).catch(fail);
  } });
  const box = el("input", { type: "checkbox", "aria-label": `${t("selectMemory")} ${m.id.slice(0, 8)}` });
  box.checked = state.selected.has(m.id);
  box.addEventListener("change", () => {
    if (box.checked) state.selected.add(m.id); else state.selected.delete(m.id);
    renderSelected();
  });
  const bits = [
    el("span", { class: `badge t-${m.memory_type}`, text: t(m.memory_type) }),
    m.permanent ? el("span", { class: "badge fact", text: t("factMark") }) : null,
    m.role ? el("span", { text: t(`said_${m.role}`) || m.role }) : null,
    el("span", { text: `${t("created")} ${when(m.created_at)}` }),
    m.updated_at !== m.created_at ? el("span", { text: `${t("updated")} ${when(m.updated_at)}` }) : null,
    el("span", { text: `${t("importance")} ${Number(m.importance).toFixed(2)}` }),
    m.version > 1 ? el("span", { text: `${t("version")} ${m.version}` }) : null,
    m.provenance.source ? el("span", { text: `${t("source")} ${m.provenance.source}` }) : null,
    m.session_id ? el("span", { text: `${t("session")} ${m.session_id}` }) : null,
    extra,
  ];
  return el("li", { class: `mem${state.open === m.id ? " open" : ""}` }, box, link,
    el("div", { class: "meta-line" }, bits));
}

async function loadList() {
  const list = $("list");
  if (!state.user) {
    list.replaceChildren(el("p", { class: "muted", text: t("pickUserFirst") }));
    return;
  }
  say(t("loading"));
  const ticket = ++tickets.list;
  const data = await api(`/api/memories?${q({ user: state.user })}`);
  if (ticket !== tickets.list) return;
  const byId = {};
  for (const kind of Object.keys(data.kinds)) for (const m of data.kinds[kind]) byId[m.id] = m;
  const sections = [];
  for (const kind of ["facts", "profile", "said", "notes"]) {
    const rows = data.kinds[kind];
    if (!rows.length) continue;
    const section = el("section", { "data-kind": kind }, el("h2", { text: `${t(`kind_${kind}`)} · ${rows.length}` }));
    if (kind === "said" || kind === "notes") {
      const ids = new Set(rows.map((m) => m.id));
      for (const s of data.sessions) {
        const mine = s.ids.filter((id) => ids.has(id));
        if (!mine.length) continue;
        section.append(el("div", { class: "session", text: s.session_id ? `${t("session")} ${s.session_id}` : t("noSession") }));
        section.append(el("ul", {}, mine.map((id) => memoryItem(byId[id]))));
      }
    } else {
      section.append(el("ul", {}, rows.map((m) => memoryItem(m))));
    }
    sections.push(section);
  }
  list.replaceChildren(...(sections.length ? sections : [el("p", { class: "muted", text: t("noResults") })]));
  say("");
}

async function runSearch(text, openBest = true) {
  if (!state.user) return say(t("pickUser"));
  if (!text.trim()) return loadList();
  state.search = text;
  const ticket = ++tickets.list;
  const data = await api(`/api/search?${q({ user: state.user, q: text })}`);
  if (ticket !== tickets.list) return;
  const rows = data.hits.map((h) => memoryItem(h, el("span", {
    text: `${t("score")} ${h.score} · ${t("legs")} ${h.legs.map((l) => t(l)).join(" + ") || t("none")}` })));
  $("list").replaceChildren(el("section", { "data-kind": "search" },
    el("h2", { text: t("results", text, data.hits.length) }),
    rows.length ? el("ul", {}, rows) : el("p", { class: "muted", text: t("noResults") })));
  if (openBest && data.hits.length) await openMemory(data.hits[0].id);  // a submitted search opens its best hit
}

// ------------------------------------------------------------------ one memory
function detailBusy(busy) {
  for (const id of ["btn-history", "btn-edit", "btn-delete", "btn-save", "new-text"]) if ($(id)) $(id).disabled = busy;
}

async function openMemory(id, showHistory = false) {
  const ticket = ++tickets.memory;
  detailBusy(true);  // the buttons act on the memory being opened only once it is shown
  let data;
  try {
    data = await api(`/api/memory?${q({ user: state.user, id })}`);
  } finally {
    if (ticket === tickets.memory) detailBusy(false);
  }
  if (ticket !== tickets.memory) return;
  state.open = id;
  const m = data.memory;
  $("detail").hidden = false;
  $("detail-text").textContent = m.content;
  const meta = [
    ["id", m.id], ["tier", t(m.memory_type)], ["kind", t(`kind_${m.kind}`)], ["created", when(m.created_at)],
    ["updated", when(m.updated_at)], ["version", m.version], ["importance", Number(m.importance).toFixed(2)],
    ["accessed", m.access_count], ["session", m.session_id || t("noSession")],
    ["source", m.provenance.source || (m.role ? t(`said_${m.role}`) : t("none"))],
    ["tags", m.tags.length ? m.tags.join(", ") : t("none")], ["expires", when(m.expires_at)],
    ["metadata", Object.keys(m.metadata).length ? JSON.stringify(m.metadata) : t("none")],
  ];
  $("detail-meta").replaceChildren(...meta.flatMap(([k, v]) => [el("dt", { text: t(k) }), el("dd", { text: String(v) })]));
  if (m.permanent) $("detail-meta").append(el("dt", { text: "" }), el("dd", {}, el("span", { class: "badge fact", text: t("factMark") })));
  if (!READ_ONLY) {  // (a read-only page has no editing controls at all)
    $("new-text").value = m.content;
    $("edit-note").value = "";
    $("edit-panel").hidden = !state.editOpen;
  }
  if (showHistory) state.historyOpen = true;
  renderHistory(data.history);
  $("history-panel").hidden = !state.historyOpen;
  for (const a of document.querySelectorAll(".mem")) a.classList.toggle("open", a.querySelector("a").dataset.id === id);
}

function renderHistory(history) {
  const last = history.length - 1;
  $("history-list").replaceChildren(...history.map((v, i) => el("li", { class: i === last ? "current" : "" },
    el("div", {}, el("strong", { text: `${t("version")} ${v.version}` }), " · ", when(v.created_at),
      i === last ? el("span", { class: "badge", text: t("current") }) : null,
      v.changed ? el("span", { class: "badge warn", text: t("changed") }) : null),
    el("div", { class: "content", text: v.content }),
    el("div", { class: "note", text: `${t("note")}: ${v.note || (v.version === 1 ? t("firstVersion") : t("none"))}` }))));
}

async function saveVersion() {
  const data = await api("/api/update", { user: state.user, id: state.open, content: $("new-text").value,
                                          note: $("edit-note").value });
  state.editOpen = false;
  await refreshList();
  await openMemory(state.open, true);
  say(t("saved", data.version));
}

async function deleteOpen() {
  if (!window.confirm(t("confirmDelete"))) return;
  await api("/api/delete", { user: state.user, id: state.open });
  state.selected.delete(state.open);
  state.open = null;
  $("detail").hidden = true;
  await loadInfo();
  await refreshList();
  say(t("deleted"));
}

async function refreshList() {
  if (state.search) await runSearchKeepOpen(); else await loadList();
}

async function runSearchKeepOpen() {
  const open = state.open;
  await runSearch(state.search, false);
  if (open) await openMemory(open).catch(() => { $("detail").hidden = true; });
}

// ------------------------------------------------------------------ bulk actions (preview first)
function renderSelected() {
  const n = state.selected.size;
  $("bulk-bar").hidden = n === 0;
  $("selected-count").textContent = t("selected", n);
}

async function preview(action) {
  const data = await api("/api/preview", { user: state.user, ids: [...state.selected] });
  state.bulk = action;
  $("preview-title").textContent = action === "remove" ? t("previewDelete", data.count) : t("previewExport", data.count);
  $("preview-list").replaceChildren(...data.memories.map((m) => el("li", { text: `[${t(m.memory_type)}] ${m.content}` })));
  $("preview-go").textContent = action === "remove" ? t("confirmRemove") : t("downloadExport");
  $("preview-go").className = action === "remove" ? "danger" : "";
  $("preview").hidden = false;
}

async function runBulk() {
  const ids = [...state.selected];
  if (state.bulk === "remove") {
    const data = await api("/api/bulk-delete", { user: state.user, ids });
    state.selected.clear();
    if (data.deleted.includes(state.open)) $("detail").hidden = true;
    await loadInfo();
    await refreshList();
    say(t("deleted"));
  } else {
    const data = await api("/api/export", { user: state.user, ids });
    const blob = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
    const link = el("a", { href: URL.createObjectURL(blob), download: `hermes-memory-${state.user}.json` });
    document.body.append(link);
    link.click();
    link.remove();
    say(t("exported", data.memories.length));
  }
  $("preview").hidden = true;
  renderSelected();
}

// ------------------------------------------------------------------ forget a user
function openForget() {
  const input = el("input", { id: "forget-confirm", type: "text", autocomplete: "off" });
  const go = el("button", { type: "button", id: "forget-go", class: "danger", disabled: true, text: t("forget"),
                            onclick: guard(forgetUser) });
  input.addEventListener("input", () => { go.disabled = input.value !== state.user; });
  $("forget-panel").replaceChildren(el("label", { for: "forget-confirm", text: t("typeToConfirm") }), input, go,
    el("button", { type: "button", text: t("cancel"), onclick: closeForget }));
  $("forget-open").hidden = true;
  $("forget-panel").hidden = false;
  input.focus();
}

function closeForget() {
  if (READ_ONLY) return;
  $("forget-panel").replaceChildren();
  $("forget-panel").hidden = true;
  $("forget-open").hidden = false;
}

async function forgetUser() {
  const user = state.user;
  const data = await api("/api/forget-user", { user, confirm: $("forget-confirm").value });
  const r = data.report;
  closeForget();
  await loadInfo();
  await pickUser("");
  $("user").value = "";
  const box = $("erasure-report");
  box.replaceChildren(el("h3", { text: t("erased", r) }),
    el("p", { text: r.left ? t("erasureLeft") + r.left : t("erasureDone") }),
    el("pre", { text: JSON.stringify(r, null, 2) }));
  box.hidden = false;
}

// ------------------------------------------------------------------ recall inspector
async function inspectRecall(text) {
  if (!state.user) return say(t("pickUser"));
  const r = await api(`/api/recall?${q({ user: state.user, q: text })}`);
  const table = (rows, cols) => el("table", {}, el("tr", {}, cols.map(([, label]) => el("th", { text: label }))),
    rows.map((row) => el("tr", {}, cols.map(([key]) => el("td", { text: String(row[key] ?? "") })))));
  const out = [
    el("dl", { class: "meta" },
      el("dt", { text: t("gate") }), el("dd", { class: r.gate ? "ok" : "warn", text: r.gate ? t("gateYes") : t("gateNo") }),
      el("dt", { text: t("factRoute") }), el("dd", { text: r.fact_route ? t("routeYes") : t("routeNo") }),
      el("dt", { text: t("floor") }), el("dd", { text: r.floor === null ? t("none") : String(r.floor) })),
    el("h3", { text: t("block") }), el("pre", { class: "block", text: r.block || t("emptyBlock") }),
  ];
  if (r.nothing) out.push(el("h3", { text: t("nothing") }), el("p", { class: "warn", text: reasonText(r.nothing) }));
  const rows = (list) => list.map((x) => ({ ...x, legs: x.legs.map((l) => t(l)).join(" + "),
                                              why: x.why.map(reasonText).join("; ") }));
  if (r.lines.length) out.push(el("h3", { text: t("lines") }), table(rows(r.lines),
    [["rank", t("rank")], ["content", t("content")], ["score", t("score")], ["legs", t("legs")], ["why", t("why")]]));
  if (r.withheld.length) out.push(el("h3", { text: t("withheld") }), table(rows(r.withheld),
    [["content", t("content")], ["why", t("why")]]));
  if (r.left_out.length) out.push(el("h3", { text: t("leftOut") }), table(rows(r.left_out),
    [["content", t("content")], ["score", t("score")], ["why", t("why")]]));
  $("recall-out").replaceChildren(...out);
}

// ------------------------------------------------------------------ health
function chart(days) {
  const NS = "http://www.w3.org/2000/svg";
  const svgEl = (tag, attrs, text) => {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const W = 720, H = 220, left = 36, bottom = 34, top = 10;
  const max = Math.max(1, ...days.map((d) => TIERS.reduce((s, k) => s + d[k], 0)));
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("growth") });
  const band = (W - left - 10) / Math.max(days.length, 1);
  const scale = (H - top - bottom) / max;
  for (const tick of [0, Math.ceil(max / 2), max]) {
    const y = H - bottom - tick * scale;
    svg.append(svgEl("line", { x1: left, x2: W - 10, y1: y, y2: y, stroke: "#d9dee7" }));
    svg.append(svgEl("text", { x: left - 6, y: y + 4, "text-anchor": "end", "font-size": 11, fill: "#5d6677" }, tick));
  }
  const colors = { short_term: "#8fb3ff", long_term: "#2457c5", permanent: "#6b3fa0" };
  days.forEach((d, i) => {
    let y = H - bottom;
    const x = left + i * band + band * 0.15;
    for (const k of TIERS) {
      const h = d[k] * scale;
      if (h > 0) {
        const bar = svgEl("rect", { x, y: y - h, width: Math.max(band * 0.7, 2), height: h, fill: colors[k] });
        bar.append(svgEl("title", {}, `${d.day} · ${t(k)}: ${d[k]}`));
        svg.append(bar);
      }
      y -= h;
    }
    if (days.length <= 14 || i % Math.ceil(days.length / 14) === 0) {
      svg.append(svgEl("text", { x: x + band * 0.35, y: H - bottom + 16, "text-anchor": "middle", "font-size": 10,
                                 fill: "#5d6677" }, d.day.slice(5)));
    }
  });
  return svg;
}

async function loadHealth() {
  const h = await api(`/api/health?${q(state.user ? { user: state.user } : {})}`);
  const card = (n, label) => el("div", { class: "card" }, el("div", { class: "n", text: String(n) }), el("div", { class: "muted", text: label }));
  const legend = el("div", { class: "legend" }, TIERS.map((k) => el("span", {}, el("span", { class: `swatch sw-${k}` }), t(k))));
  $("health-out").replaceChildren(
    el("div", { class: "cards" }, card(h.total_active, t("total")),
      TIERS.map((k) => card(h.by_type[k] || 0, t(k))), card(h.vector_points, t("vectors")),
      card(h.versions, t("versionsN")), card(h.deleted, t("deletedN")), card(h.disk_bytes, t("disk"))),
    el("h3", { text: `${t("growth")} (${h.scope ? t("scopeUser", h.scope) : t("scopeAll")})` }),
    el("div", { class: "chart" }, legend, chart(h.days)),
    el("h3", { text: t("checks") }),
    el("table", {}, el("tr", {}, el("th", { text: t("check") }), el("th", { text: t("status") }), el("th", { text: t("detail") })),
      h.checks.map((c) => el("tr", {}, el("td", { text: t(`check_${c.check}`) }),
                                     el("td", { class: c.status, text: t(`status_${c.status}`) }),
                                     el("td", { text: c.detail })))),
    el("h3", { text: t("byUser") }),
    el("table", {}, Object.entries(h.by_user).map(([u, n]) => el("tr", {}, el("td", { text: u }),
                                                                       el("td", { text: `${n} ${t("memoriesN")}` })))));
}

// ------------------------------------------------------------------ wiring
function guard(fn) {
  return (...args) => Promise.resolve().then(() => fn(...args)).catch(fail);
}

function wire() {
  if (READ_ONLY) {
    document.body.classList.add("read-only");
    for (const node of document.querySelectorAll(".write")) node.remove();  // no control that writes
    $("ro-badge").hidden = false;
  }
  const saved = window.localStorage.getItem("hermes-console-lang");
  state.lang = saved === "zh" || saved === "en" ? saved : "en";
  $("lang").addEventListener("change", () => {
    state.lang = $("lang").value;
    window.localStorage.setItem("hermes-console-lang", state.lang);
    applyLanguage();
    guard(async () => {
      if (state.view === "health") await loadHealth();
      if (state.user) await (state.search ? runSearchKeepOpen() : loadList());
    })();
  });
  $("user").addEventListener("change", guard(() => pickUser($("user").value)));
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showView(tab.dataset.view));
  let typing = 0;  // search as one types, once typing pauses (a submitted search cancels it)
  $("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    window.clearTimeout(typing);
    guard(runSearch)($("search").value, true);
  });
  $("search").addEventListener("input", () => {
    window.clearTimeout(typing);
    typing = window.setTimeout(() => {
      const text = $("search").value;
      if (!state.user || text === state.search) return;
      if (text.trim()) guard(runSearch)(text, false);
      else { state.search = ""; guard(loadList)(); }
    }, 400);
  });
  $("show-all").addEventListener("click", guard(() => { state.search = ""; $("search").value = ""; return loadList(); }));
  $("btn-history").addEventListener("click", () => {
    state.historyOpen = !state.historyOpen;
    $("history-panel").hidden = !state.historyOpen;
  });
  $("bulk-export").addEventListener("click", guard(() => preview("export")));
  $("preview-go").addEventListener("click", guard(runBulk));
  $("preview-cancel").addEventListener("click", () => { $("preview").hidden = true; });
  $("recall-form").addEventListener("submit", (e) => { e.preventDefault(); guard(inspectRecall)($("recall-q").value); });
  if (!READ_ONLY) {
    $("btn-edit").addEventListener("click", () => {
      state.editOpen = !state.editOpen;
      $("edit-panel").hidden = !state.editOpen;
      if (state.editOpen) $("new-text").focus();
    });
    $("btn-save").addEventListener("click", guard(saveVersion));
    $("btn-delete").addEventListener("click", guard(deleteOpen));
    $("bulk-remove").addEventListener("click", guard(() => preview("remove")));
    $("forget-open").addEventListener("click", openForget);
  }
  applyLanguage();
  showView("memories");
  guard(loadInfo)();
}

wire();
