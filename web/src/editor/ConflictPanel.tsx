import { useEffect, useRef } from 'react';
import { errorMessage } from '../api/errors';
import { allSettled, carriedOver, rebasedDraft } from '../changeRequests';
import { Button } from '../components/Button';
import { Loading } from '../components/Loading';
import { formatRelative } from '../format';
import { ConflictChoicesList, EDITOR_WORDING } from '../review/ConflictChoices';
import { fieldLabel } from '../siteDraft';
import { WidgetPreview } from './WidgetPreview';
import type { SiteEditorState } from './useSiteEditor';

/**
 * The editor's own conflict (412: someone saved since this editor loaded). Their version is
 * fetched and merged with the draft setting by setting (the server's merge, src/sites/site-merge.ts):
 * every setting only one side changed keeps that side's value and is listed as kept, each setting
 * both changed gets "keep mine / take theirs", and the preview shows the merged result; then the
 * merged draft is saved against their version.
 */
export function ConflictPanel({ editor }: { editor: SiteEditorState }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const { theirs, conflicts, choices, fetchingTheirs } = editor;
  const loaded = theirs !== undefined;
  const kept = theirs === undefined ? undefined : carriedOver(editor.saved, theirs.site, editor.draft);
  // Once their version is here, the choice is where the person looks next.
  useEffect(() => {
    if (loaded) heading.current?.focus();
  }, [loaded]);
  return (
    <section className="card" aria-labelledby="editor-conflict-title">
      <div className="card-header">
        <div>
          <h2 id="editor-conflict-title" ref={heading} tabIndex={-1}>
            Choose what to keep
          </h2>
          {theirs !== undefined && (
            <p>
              Their version was saved {formatRelative(theirs.site.updated_at)}.{' '}
              {conflicts.length === 0
                ? 'They changed other settings than you did: saving puts your changes on top of their version and keeps theirs.'
                : `You both changed ${conflicts.length === 1 ? 'one setting' : `${conflicts.length} settings`}: keep yours or take theirs for each. Everything else either of you changed is kept.`}
            </p>
          )}
        </div>
      </div>
      {fetchingTheirs.isError ? (
        <div className="alert alert-error" role="alert">
          <p>Their version could not be loaded. {errorMessage(fetchingTheirs.error)}</p>
          <Button onClick={() => fetchingTheirs.mutate()}>Try again</Button>
        </div>
      ) : theirs === undefined ? (
        <Loading label="Loading their version…" />
      ) : (
        <>
          {conflicts.length > 0 && <ConflictChoicesList conflicts={conflicts} choices={choices} onChoose={editor.choose} wording={EDITOR_WORDING} />}
          {kept !== undefined && <KeptSettings label="Kept from their save" paths={kept.theirs} />}
          {kept !== undefined && <KeptSettings label="Kept from your changes" paths={kept.mine} />}
          <WidgetPreview
            draft={rebasedDraft(editor.saved, theirs.site, editor.draft, choices)}
            caption={allSettled(conflicts, choices) ? 'as saving on top of their version leaves it' : 'as saving on top of their version leaves it (a setting still to choose shows theirs)'}
          />
          {!allSettled(conflicts, choices) && <p className="muted">Choose for every setting listed, then save.</p>}
          <Button variant="primary" disabled={!allSettled(conflicts, choices)} busy={editor.saving.isPending} onClick={editor.saveOverTheirs}>
            {editor.propose ? 'Propose on top of their version…' : 'Save on top of their version'}
          </Button>
        </>
      )}
      <p className="muted">Or drop your changes and continue from theirs:</p>
      {editor.reloading.error !== null && <p className="field-error">{errorMessage(editor.reloading.error)}</p>}
      <Button variant="danger" busy={editor.reloading.isPending} onClick={() => editor.reloading.mutate()}>
        Reload their version (your changes will be lost)
      </Button>
    </section>
  );
}

/** The settings the merge carries over from one side without asking. */
function KeptSettings({ label, paths }: { label: string; paths: readonly string[] }) {
  if (paths.length === 0) return null;
  return (
    <div className="conflict-kept">
      <h3>{label}</h3>
      <ul aria-label={label}>
        {paths.map((path) => (
          <li key={path}>{fieldLabel(path)}</li>
        ))}
      </ul>
    </div>
  );
}
