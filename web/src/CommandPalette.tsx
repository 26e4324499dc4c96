// The command palette (Ctrl/Cmd+K): one box to go anywhere (a site, a screen, a section of
// Settings, a workspace, a setting by its name) or create a site, by keyboard alone. A combobox
// over a listbox: the arrows move the choice (aria-activedescendant), Enter takes it, Escape closes.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { SETTINGS_SCHEMAS } from '@server/sites/settings-schemas';
import { fetchSiteSummaries } from './api/sites';
import { focusSetting } from './editor/editorNavigation';
import { EDITOR_SECTIONS, sectionPath } from './editor/sections';
import { type PaletteItem, SCREEN_ITEMS, searchPalette } from './palette';
import { useWorkspaces } from './queries';
import { queryKeys } from './queryKeys';
import { navigate } from './router';
import { DEFAULT_SITE_SORT } from './siteList';
import { workspacePath } from './workspaces';

/** Sites found by the server's own search, a few at a time. */
const SITE_RESULTS = 6;

/** The sections and settings of the site being edited, by name ("Launcher text" → Widget). */
function siteSettingItems(siteId: string, siteName: string): PaletteItem[] {
  const items: PaletteItem[] = [];
  for (const section of EDITOR_SECTIONS) {
    items.push({ id: `section:${section.id}`, label: section.title, group: siteName, detail: 'Section', to: sectionPath(siteId, section.id) });
    for (const field of section.groups) {
      const properties = (SETTINGS_SCHEMAS[field] as { properties?: Record<string, { title?: string }> }).properties ?? {};
      for (const [key, property] of Object.entries(properties)) {
        if (property.title === undefined) continue;
        items.push({ id: `setting:${field}:${key}`, label: property.title, group: siteName, detail: section.title, to: sectionPath(siteId, section.id), setting: `/${field}/${key}` });
      }
    }
  }
  return items;
}

export function CommandPalette({ onClose, site }: { onClose: () => void; site: { id: string; name: string } | undefined }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const listId = useId();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const workspaces = useWorkspaces();
  const typed = query.trim();
  const sites = useQuery({
    queryKey: queryKeys.sites.search(typed),
    queryFn: ({ signal }) => fetchSiteSummaries({ workspaceId: null, q: typed, sort: DEFAULT_SITE_SORT, cursor: null, limit: SITE_RESULTS }, signal),
    placeholderData: keepPreviousData,
  });

  const results = useMemo(() => {
    const siteItems: PaletteItem[] = (sites.data?.sites ?? []).map((each) => ({ id: `site:${each.id}`, label: each.name, group: 'Sites', to: sectionPath(each.id, 'general') }));
    const workspaceItems: PaletteItem[] = (workspaces.data ?? []).map((each) => ({ id: `workspace:${each.id}`, label: each.name, group: 'Workspaces', to: workspacePath(each.id) }));
    const local = searchPalette([...(site === undefined ? [] : siteSettingItems(site.id, site.name)), ...SCREEN_ITEMS, ...workspaceItems], typed);
    // The server searched the sites already; they come first only when something was typed.
    return typed === '' ? [...local, ...siteItems] : [...siteItems, ...local];
  }, [sites.data, workspaces.data, site, typed]);

  useEffect(() => {
    const element = dialog.current;
    if (element !== null && !element.open) element.showModal();
  }, []);
  useEffect(() => setActive(0), [typed]);

  function choose(item: PaletteItem | undefined) {
    if (item === undefined) return;
    onClose();
    navigate(item.to);
    if (item.setting !== undefined) focusSetting(item.setting);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => (results.length === 0 ? 0 : (current + step + results.length) % results.length));
    } else if (event.key === 'Enter') {
      event.preventDefault();
      choose(results[active]);
    }
  }

  const activeId = results[active] === undefined ? undefined : `${listId}-${active}`;
  return (
    <dialog
      ref={dialog}
      className="dialog palette"
      aria-label="Go to or do anything"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop (the dialog itself, outside its content) closes it.
        if (event.target === dialog.current) onClose();
      }}
    >
      <input
        className="palette-input"
        type="text"
        role="combobox"
        aria-label="Search sites, settings and workspaces"
        aria-expanded="true"
        aria-controls={listId}
        aria-activedescendant={activeId}
        aria-autocomplete="list"
        autoComplete="off"
        placeholder="Search sites, settings, workspaces…"
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={onKeyDown}
        autoFocus
      />
      <ul className="palette-list" id={listId} role="listbox" aria-label="Results">
        {results.map((item, index) => (
          <li
            key={item.id}
            id={`${listId}-${index}`}
            role="option"
            aria-selected={index === active}
            className={index === active ? 'palette-option palette-option-active' : 'palette-option'}
            onMouseMove={() => setActive(index)}
            onClick={() => choose(item)}
          >
            <span>{item.label}</span>
            <span className="palette-detail">{item.detail === undefined ? item.group : `${item.group} › ${item.detail}`}</span>
          </li>
        ))}
        {results.length === 0 && (
          <li className="palette-empty" role="presentation">
            Nothing matches “{typed}”.
          </li>
        )}
      </ul>
      <p className="palette-keys muted small" aria-hidden="true">
        <kbd>↑</kbd> <kbd>↓</kbd> to choose · <kbd>Enter</kbd> to go · <kbd>Esc</kbd> to close
      </p>
    </dialog>
  );
}
