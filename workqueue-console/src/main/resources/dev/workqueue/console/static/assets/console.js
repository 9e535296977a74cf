// The work queue console: an overview of every queue and a page per queue, read from the
// console's JSON API every second. Plain DOM, no framework. Item text is only ever put in
// text nodes and attributes, never parsed as HTML.
'use strict';

(() => {
	// The overview is polled four times a second: the server answers from its latest
	// reading of the queues, which it takes about once a second however many pages are
	// open (a reading can cost the store a count of the queue), so the figures shown are
	// at most that second, the reading's own time and a quarter of a second behind the
	// queues, well within 2 s. A queue's page reads its items afresh each time, so once a
	// second.
	const OVERVIEW_POLL_MILLIS = 250;
	const QUEUE_POLL_MILLIS = 1000;
	const PAGE_SIZE = 50;
	// The deepest a list is served (QueueInspector.MAX_DEPTH): a page beyond is refused, and
	// the items there are looked up with Find.
	const MAX_DEPTH = 10_000;
	const STATES = ['ready', 'processing', 'waiting', 'given-up'];
	const STATE_FIGURE = { ready: 'depth', processing: 'processing', waiting: 'waiting', 'given-up': 'givenUp' };
	const FIGURES = [
		['backend', 'Backend', (q) => q.backend],
		['depth', 'Ready', (q) => q.depth],
		['processing', 'Processing', (q) => q.processing],
		['waiting', 'Waiting', (q) => q.waiting],
		['given-up', 'Given up', (q) => q.givenUp],
		['concurrency', 'Concurrency', (q) => q.concurrency],
		['paused', 'Paused', (q) => q.paused],
	];

	const meta = (name) => {
		const value = document.querySelector(`meta[name="${name}"]`)?.content ?? '';
		return value.startsWith('{{') ? '' : value;
	};
	const base = meta('workqueue-base').replace(/\/+$/, '');
	const csrfHeader = meta('workqueue-csrf-header');
	const csrfToken = meta('workqueue-csrf-token');
	const app = document.getElementById('app');
	const alertBox = document.getElementById('alert');
	const readOnlyNote = document.getElementById('read-only-note');
	const instanceLabel = document.getElementById('instance');

	// ---- DOM and formatting helpers

	/** Creates an element; attributes by setAttribute, children as nodes or text nodes. */
	function h(tag, attrs, ...children) {
		const el = document.createElement(tag);
		for (const [key, value] of Object.entries(attrs ?? {})) {
			if (value === false || value == null) continue;
			if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
			else el.setAttribute(key, value === true ? '' : String(value));
		}
		for (const child of children.flat()) {
			if (child != null) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
		}
		return el;
	}

	function setText(el, value) {
		const text = value == null ? '' : String(value);
		if (el.textContent !== text) el.textContent = text;
	}

	const svgNs = 'http://www.w3.org/2000/svg';
	function svg(tag, attrs) {
		const el = document.createElementNS(svgNs, tag);
		for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
		return el;
	}

	/** Milliseconds since the epoch of an instant the API gives as ISO text or a number. */
	function millis(at) {
		if (at == null) return null;
		const value = typeof at === 'number' ? at : Date.parse(at);
		return Number.isNaN(value) ? null : value;
	}

	function duration(ms) {
		if (ms == null) return '';
		const negative = ms < 0;
		let s = Math.floor(Math.abs(ms) / 1000);
		let text;
		if (s < 60) text = `${s} s`;
		else if (s < 3600) text = `${Math.floor(s / 60)} min ${s % 60} s`;
		else if (s < 86400) text = `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
		else text = `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
		return negative ? `-${text}` : text;
	}

	function seconds(value) {
		return value == null ? '' : duration(value * 1000);
	}

	const attempts = (n) => (n == null || n < 0 ? '—' : String(n));

	function queueUrl(name) {
		return `${base}/queues/${encodeURIComponent(name)}`;
	}

	function apiUrl(name, params) {
		let url = `${base}/api/queues`;
		if (name != null) url += `/${encodeURIComponent(name)}`;
		const query = new URLSearchParams(params ?? {}).toString();
		return query ? `${url}?${query}` : url;
	}

	// ---- talking to the server

	class ApiError extends Error {}

	async function request(url, init) {
		const response = await fetch(url, {
			credentials: 'same-origin',
			cache: 'no-store',
			redirect: 'manual',
			...init,
			headers: { Accept: 'application/json', ...(init?.headers ?? {}) },
		});
		if (response.type === 'opaqueredirect') {
			// Security sends a signed-out browser to its login page: say so rather than follow.
			throw new ApiError('redirected, the session may have ended: reload the page to sign in');
		}
		const type = response.headers.get('Content-Type') ?? '';
		const body = type.includes('json') ? await response.json().catch(() => null) : null;
		if (!response.ok) {
			const why = body?.error ?? body?.message ?? response.statusText;
			throw new ApiError(`${response.status}${why ? ` ${why}` : ''}`);
		}
		if (body == null) throw new ApiError(`${response.status}: the answer is not JSON`);
		return body;
	}

	function post(queue, action, body) {
		const headers = { 'Content-Type': 'application/json' };
		if (csrfHeader && csrfToken) headers[csrfHeader] = csrfToken;
		return request(`${apiUrl(queue)}/actions/${encodeURIComponent(action)}`, {
			method: 'POST',
			headers,
			body: JSON.stringify(body ?? {}),
		});
	}

	// ---- the alert: one place for every error, spoken by screen readers

	let alertFromLoad = false;
	function showAlert(message, fromLoad) {
		alertFromLoad = fromLoad;
		setText(alertBox, message);
	}
	function clearAlert(fromLoad) {
		if (!fromLoad || alertFromLoad) setText(alertBox, '');
	}

	/**
	 * Runs an action on one click; a refusal or a bad value shows in the alert. The answer's
	 * figures show only if the page it was asked from is still shown.
	 */
	async function act(queue, action, body, button) {
		if (button) button.disabled = true;
		const askedFrom = view;
		try {
			const answer = await post(queue, action, body);
			clearAlert(false);
			if (answer?.instance) setText(instanceLabel, `answered by ${answer.instance}`);
			if (view === askedFrom && answer?.name === queue && view?.figures) view.figures(answer);
			refreshNow();
		}
		catch (error) {
			showAlert(`${action} on ${queue} refused: ${error.message}`, false);
		}
		finally {
			if (button) button.disabled = false;
		}
	}

	// ---- pieces shared by both pages

	/** A small chart of adds and retries per second, newest on the right. */
	function rateChart() {
		const width = 120;
		const height = 28;
		const el = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, class: 'chart', role: 'img' });
		const title = svg('title', {});
		const axis = svg('line', { class: 'axis', x1: 0, x2: width, y1: height - 0.5, y2: height - 0.5 });
		const adds = svg('polyline', { class: 'adds', fill: 'none' });
		const retries = svg('polyline', { class: 'retries', fill: 'none' });
		el.append(title, axis, adds, retries);
		el.update = (rates) => {
			const a = rates?.adds ?? [];
			const r = rates?.retries ?? [];
			const n = Math.max(a.length, r.length, 2);
			const top = Math.max(1, ...a, ...r);
			const points = (values) => values
				.map((v, i) => `${((i + n - values.length) * width / (n - 1)).toFixed(1)},${(height - 1 - (v / top) * (height - 2)).toFixed(1)}`)
				.join(' ');
			adds.setAttribute('points', points(a));
			retries.setAttribute('points', points(r));
			const last = (values) => (values.length ? Number(values[values.length - 1]).toFixed(1) : '0');
			const span = seconds((rates?.intervalSeconds ?? 0) * Math.max(a.length, r.length));
			const label = a.length || r.length
				? `adds ${last(a)}/s, retries ${last(r)}/s lately; over the last ${span}, up to ${top.toFixed(1)}/s`
				: 'no rates measured yet';
			el.setAttribute('aria-label', label);
			setText(title, label);
		};
		return el;
	}

	/** A figure as the contract shows it: plain digits, true or false, empty when unknown. */
	const figureText = (value) => (value == null ? '' : String(value));

	/** How far the server's clock is ahead of the browser's, so that ages read as the server's. */
	let serverOffsetMillis = 0;
	const serverNow = () => Date.now() + serverOffsetMillis;

	/** Shows what the overview's answer tells of the instance that answered. */
	function showInstance(data) {
		setText(instanceLabel, data.instance ? `answered by ${data.instance}` : '');
		readOnlyNote.hidden = !data.readOnly;
		const time = millis(data.time);
		if (time != null) serverOffsetMillis = time - Date.now();
	}

	// ---- the overview

	function overview() {
		const rows = new Map();
		const body = h('tbody');
		const empty = h('p', { class: 'muted', hidden: true }, 'No queues in this application.');
		const headers = ['Queue', ...FIGURES.map(([, label]) => label), 'Adds and retries / s', 'Longest running'];
		app.replaceChildren(
			h('h1', { tabindex: -1 }, 'Queues'),
			h('p', { class: 'legend' }, h('span', { class: 'key adds' }, 'adds'), ' ', h('span', { class: 'key retries' }, 'retries'), ' per second'),
			h('div', { class: 'scroll' }, h('table', { class: 'queues' },
				h('thead', null, h('tr', null, headers.map((label) => h('th', { scope: 'col' }, label)))),
				body)),
			empty);
		document.title = 'Work queues';

		function row(q) {
			const cells = {};
			const chart = rateChart();
			const longest = h('td', { class: 'num' });
			const error = h('span', { class: 'error' });
			const tr = h('tr', { 'data-queue': q.name },
				h('th', { scope: 'row' }, h('a', { href: queueUrl(q.name) }, q.name), ' ', error),
				FIGURES.map(([key]) => (cells[key] = h('td', { 'data-field': key, class: key === 'backend' ? null : 'num' }))),
				h('td', null, chart),
				longest);
			tr.update = (queue) => {
				for (const [key, , get] of FIGURES) setText(cells[key], figureText(get(queue)));
				chart.update(queue.rates);
				setText(longest, seconds(queue.longestRunningSeconds));
				setText(error, queue.error ?? '');
			};
			return tr;
		}

		return {
			pollMillis: OVERVIEW_POLL_MILLIS,
			load: () => request(apiUrl()),
			render(data) {
				showInstance(data);
				const seen = new Set();
				data.queues.forEach((q, i) => {
					seen.add(q.name);
					let tr = rows.get(q.name);
					if (!tr) rows.set(q.name, (tr = row(q)));
					tr.update(q);
					if (body.children[i] !== tr) body.insertBefore(tr, body.children[i] ?? null);
				});
				for (const [name, tr] of rows) {
					if (!seen.has(name)) {
						tr.remove();
						rows.delete(name);
					}
				}
				empty.hidden = data.queues.length > 0;
			},
		};
	}

	// ---- a queue's page

	const COLUMNS = {
		ready: [['Priority', (i) => i.priority], ['Age', (i, now) => duration(now - millis(i.at))], ['Attempts', (i) => attempts(i.attempts)]],
		processing: [['Holder', (i) => (i.ahead ? `${i.holder ?? ''} (claimed ahead)` : i.holder)], ['Since', (i, now) => duration(now - millis(i.at))],
			['Lease left', (i) => (i.leaseLeftMillis == null ? '—' : duration(i.leaseLeftMillis))], ['Attempts', (i) => attempts(i.attempts)]],
		waiting: [['Due in', (i, now) => duration(millis(i.at) - now)], ['Priority', (i) => i.priority], ['Attempts', (i) => attempts(i.attempts)]],
		'given-up': [['Reason', (i) => i.reason], ['Attempts', (i) => attempts(i.attempts)], ['When', (i, now) => `${duration(now - millis(i.at))} ago`],
			['Instance', (i) => i.holder]],
		found: [['State', (i) => i.state], ['Holder', (i) => (i.ahead ? `${i.holder ?? ''} (claimed ahead)` : i.holder)],
			['Lease left', (i) => (i.leaseLeftMillis == null ? '—' : duration(i.leaseLeftMillis))], ['Attempts', (i) => attempts(i.attempts)],
			['At', (i) => (millis(i.at) == null ? '' : new Date(millis(i.at)).toLocaleString())]],
	};
	const TITLES = { ready: 'Ready', processing: 'Processing', waiting: 'Waiting', 'given-up': 'Given up', found: 'Found' };

	/** Which item an action names: its text, or its opaque id when item text is not shown. */
	const itemRef = (item) => (item.text != null ? { item: item.text } : { id: item.id });
	const itemKey = (item) => (item.text != null ? `t:${item.text}` : `i:${item.id}`);

	/**
	 * One table of items; rows are kept by item so that focus survives each refresh. A
	 * listed item's row carries data-item (or data-item-id) and data-state; a found item's
	 * row carries data-found instead, so that each item and state has one element.
	 */
	function itemTable(queue, list) {
		const columns = COLUMNS[list];
		const rows = new Map();
		const body = h('tbody');
		const table = h('table', { class: 'items' },
			h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Item'), columns.map(([label]) => h('th', { scope: 'col' }, label)),
				h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')))),
			body);

		function row(item) {
			const state = item.state ?? list;
			const label = item.text != null ? item.text : `#${item.id}`;
			const attrs = {};
			if (list === 'found') attrs['data-found'] = item.text ?? item.id;
			else if (item.text != null) Object.assign(attrs, { 'data-item': item.text, 'data-state': state });
			else Object.assign(attrs, { 'data-item-id': item.id, 'data-state': state });
			const button = (action, text) => h('button', {
				type: 'button', 'data-action': action, 'aria-label': `${text} ${label}`,
				onclick: (event) => act(queue, action, itemRef(item), event.currentTarget),
			}, text);
			const cells = columns.map(([title]) => h('td', { class: title === 'Reason' ? 'wrap' : null }));
			const buttons = state === 'given-up' ? [button('readd', 'Re-add'), button('delete', 'Delete'), button('forget', 'Forget')] : [button('forget', 'Forget')];
			const tr = h('tr', attrs, h('th', { scope: 'row' }, h('code', { class: 'item' }, label)), cells, h('td', { class: 'actions' }, buttons));
			tr.update = (it, now) => columns.forEach(([, get], i) => setText(cells[i], get(it, now)));
			return tr;
		}

		table.update = (items, now) => {
			const seen = new Set();
			items.forEach((item, i) => {
				const key = `${item.state ?? list}|${itemKey(item)}`;
				seen.add(key);
				let tr = rows.get(key);
				if (!tr) rows.set(key, (tr = row(item)));
				tr.update(item, now);
				if (body.children[i] !== tr) body.insertBefore(tr, body.children[i] ?? null);
			});
			for (const [key, tr] of rows) {
				if (!seen.has(key)) {
					tr.remove();
					rows.delete(key);
				}
			}
		};
		return table;
	}

	function labelled(id, text, input) {
		input.id = id;
		return [h('label', { for: id }, text), input];
	}

	function queuePage(name) {
		const offsets = Object.fromEntries(STATES.map((s) => [s, 0]));
		let find = null;
		const cells = {};
		const chart = rateChart();
		const longest = h('dd');
		const error = h('p', { class: 'error' });
		const concurrencyInput = h('input', { type: 'number', min: 1, step: 1, inputmode: 'numeric', size: 4 });
		const addInput = h('input', { type: 'text', autocomplete: 'off' });
		const findInput = h('input', { type: 'search', autocomplete: 'off' });
		const findResult = h('div', { class: 'found' });
		const foundTable = itemTable(name, 'found');
		const addForm = h('form', {
			class: 'inline', hidden: true,
			onsubmit: (event) => {
				event.preventDefault();
				act(name, 'add', { item: addInput.value }, event.submitter).then(() => { if (!alertBox.textContent) addInput.value = ''; });
			},
		}, labelled('add-item', 'Item text', addInput), h('button', { type: 'submit', 'data-action': 'add' }, 'Add'));
		const sections = {};
		for (const state of STATES) {
			const table = itemTable(name, state);
			const range = h('span', { class: 'range muted', 'aria-live': 'polite' });
			const list = TITLES[state].toLowerCase();
			const prev = h('button', { type: 'button', 'data-page': `previous-${state}`, 'aria-label': `Previous ${list} items`, onclick: () => page(state, -PAGE_SIZE) }, 'Previous');
			const next = h('button', { type: 'button', 'data-page': `next-${state}`, 'aria-label': `Next ${list} items`, onclick: () => page(state, PAGE_SIZE) }, 'Next');
			const count = h('span', { class: 'count' });
			const heading = h('h2', { id: `items-${state}` }, TITLES[state], ' ', count);
			sections[state] = { table, range, prev, next, count, el: h('section', { 'aria-labelledby': `items-${state}` }, heading, h('div', { class: 'scroll' }, table), h('p', { class: 'pager' }, prev, ' ', next, ' ', range)) };
		}
		const root = h('section', { 'data-queue': name, 'aria-labelledby': 'queue-name' },
			h('p', { class: 'crumbs' }, h('a', { href: base || '/' }, 'All queues')),
			h('h1', { id: 'queue-name', tabindex: -1 }, name),
			error,
			h('dl', { class: 'figures' },
				FIGURES.map(([key, label]) => h('div', null, h('dt', null, label), (cells[key] = h('dd', { 'data-field': key })))),
				h('div', null, h('dt', null, 'Longest running'), longest),
				h('div', null, h('dt', null, 'Adds, retries / s'), h('dd', null, chart))),
			h('div', { class: 'toolbar', role: 'group', 'aria-label': 'Actions on the queue' },
				h('button', { type: 'button', 'data-action': 'pause', onclick: (e) => act(name, 'pause', {}, e.currentTarget) }, 'Pause'),
				h('button', { type: 'button', 'data-action': 'resume', onclick: (e) => act(name, 'resume', {}, e.currentTarget) }, 'Resume'),
				h('form', {
					class: 'inline',
					onsubmit: (event) => {
						event.preventDefault();
						const text = concurrencyInput.value.trim();
						if (text === '') {
							showAlert('concurrency: enter a whole number of workers', false);
							return;
						}
						const value = /^-?\d+$/.test(text) ? Number(text) : text;
						act(name, 'concurrency', { concurrency: value }, event.submitter);
					},
				}, labelled('concurrency', 'Concurrency on this instance', concurrencyInput), h('button', { type: 'submit', 'data-action': 'concurrency' }, 'Set')),
				addForm),
			h('form', {
				class: 'inline find', role: 'search',
				onsubmit: (event) => {
					event.preventDefault();
					find = findInput.value === '' ? null : findInput.value;
					refreshNow();
				},
			}, labelled('find', 'Find one item by its exact text', findInput), h('button', { type: 'submit' }, 'Find')),
			findResult,
			STATES.map((state) => sections[state].el));
		app.replaceChildren(root);
		document.title = `${name} · Work queues`;

		function page(state, delta) {
			offsets[state] = Math.min(Math.max(0, offsets[state] + delta), MAX_DEPTH - PAGE_SIZE);
			refreshNow();
		}

		function figures(q) {
			for (const [key, , get] of FIGURES) setText(cells[key], figureText(get(q)));
			setText(longest, seconds(q.longestRunningSeconds) || '—');
			chart.update(q.rates);
			setText(error, q.error ?? '');
			concurrencyInput.placeholder = String(q.concurrency ?? '');
			addForm.hidden = !q.readsText;
		}

		let instance = null;
		return {
			pollMillis: QUEUE_POLL_MILLIS,
			figures,
			async load() {
				// The instance, its clock and read-only flag come with the overview: read once.
				instance ??= request(apiUrl()).then(showInstance, (error) => {
					instance = null;
					throw error;
				});
				await instance;
				const params = { limit: PAGE_SIZE };
				if (find != null) params.find = find;
				const main = request(apiUrl(name, params));
				const paged = STATES.filter((s) => offsets[s] > 0)
					.map((s) => request(apiUrl(name, { limit: PAGE_SIZE, state: s, offset: offsets[s] })).then((d) => [s, d.items?.[s] ?? []]));
				const data = await main;
				data.items ??= {};
				for (const [state, items] of await Promise.all(paged)) data.items[state] = items;
				return data;
			},
			render(data) {
				figures(data);
				const now = serverNow();
				for (const state of STATES) {
					const s = sections[state];
					const items = data.items?.[state] ?? [];
					const total = data[STATE_FIGURE[state]] ?? items.length;
					s.table.update(items, now);
					setText(s.count, `(${total})`);
					s.prev.disabled = offsets[state] === 0;
					const deepest = offsets[state] + 2 * PAGE_SIZE > MAX_DEPTH;
					s.next.disabled = items.length < PAGE_SIZE || offsets[state] + items.length >= total || deepest;
					s.next.title = deepest && offsets[state] + items.length < total ? `The list is shown to item ${MAX_DEPTH}: look deeper items up with Find` : '';
					setText(s.range, items.length ? `${offsets[state] + 1}–${offsets[state] + items.length} of ${total}` : 'none');
				}
				if (find == null) {
					findResult.replaceChildren();
				}
				else if (data.found?.length) {
					foundTable.update(data.found, now);
					if (!findResult.contains(foundTable)) findResult.replaceChildren(foundTable);
				}
				else {
					findResult.replaceChildren(h('p', { class: 'muted' }, 'No item ', h('code', null, find), ' in this queue.'));
				}
			},
		};
	}

	// ---- routing and polling

	let view = null;
	let timer = null;
	let generation = 0;

	/** A name from the address; a malformed escape is kept as typed, and the server says there is no such queue. */
	function decoded(segment) {
		try {
			return decodeURIComponent(segment);
		}
		catch {
			return segment;
		}
	}

	function route() {
		let path = location.pathname;
		if (path.startsWith(base)) path = path.slice(base.length);
		const match = /^\/queues\/([^/]+)\/?$/.exec(path);
		view = match ? queuePage(decoded(match[1])) : overview();
		document.documentElement.removeAttribute('data-loaded');
		refreshNow();
	}

	async function refreshNow() {
		clearTimeout(timer);
		const mine = ++generation;
		const current = view;
		try {
			const data = await current.load();
			if (mine !== generation) return;
			current.render(data);
			clearAlert(true);
			document.documentElement.setAttribute('data-loaded', 'true');
		}
		catch (error) {
			if (mine !== generation) return;
			showAlert(`Could not read the queues: ${error.message}`, true);
		}
		if (mine === generation) timer = setTimeout(refreshNow, document.hidden ? 10_000 : current.pollMillis);
	}

	document.addEventListener('visibilitychange', () => {
		if (!document.hidden) refreshNow();
	});

	// Links inside the console change the page without a reload.
	document.addEventListener('click', (event) => {
		const link = event.target.closest?.('a[href]');
		if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
		const url = new URL(link.href, location.href);
		if (url.origin !== location.origin || !(url.pathname === base || url.pathname.startsWith(`${base}/`))) return;
		event.preventDefault();
		history.pushState(null, '', url);
		route();
		app.querySelector('h1')?.focus?.();
	});
	window.addEventListener('popstate', route);

	route();
})();
