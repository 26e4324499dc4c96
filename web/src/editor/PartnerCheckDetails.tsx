import { useId, useState } from 'react';
import { Button } from '../components/Button';
import { CHECK_CATEGORY_TEXT, formatDuration, type PartnerCheckResult, toolCountText, unlistedToolCount } from './partnerCheckText';

/** Tool names shown before the list folds; the rest are one click away. */
const TOOLS_SHOWN_FOLDED = 8;

/**
 * What one check found, wherever a check is shown (the last check, a test of unsaved settings, a
 * row of Recent checks): what happened in words and what to do, then the facts. The status badge
 * and the time belong to the place that shows it.
 */
export function PartnerCheckDetails({ check }: { check: PartnerCheckResult }) {
  const text = CHECK_CATEGORY_TEXT[check.category];
  return (
    <div className="check-details">
      <p className="check-summary">{text.summary}</p>
      {check.status !== 'ok' && <p className="check-hint">{text.hint}</p>}
      <dl className="check-facts">
        <div>
          <dt>What happened</dt>
          <dd className="check-message">{check.message}</dd>
        </div>
        <div>
          <dt>Took</dt>
          <dd>{formatDuration(check.duration_ms)}</dd>
        </div>
        <div>
          <dt>MCP protocol</dt>
          <dd>{check.protocol_version ?? 'Not reached'}</dd>
        </div>
        <div>
          <dt>Server</dt>
          <dd>{check.server === null ? 'Not named' : `${check.server.name} ${check.server.version}`.trim()}</dd>
        </div>
        <div className="check-facts-wide">
          <dt>Tools</dt>
          <dd>{check.tool_count === null ? 'Not listed' : <ToolList check={check} />}</dd>
        </div>
      </dl>
    </div>
  );
}

function ToolList({ check }: { check: PartnerCheckResult }) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  const folds = check.tools.length > TOOLS_SHOWN_FOLDED;
  const shown = folds && !open ? check.tools.slice(0, TOOLS_SHOWN_FOLDED) : check.tools;
  const unlisted = unlistedToolCount(check);
  return (
    <>
      <span className="check-tool-count">{toolCountText(check)}</span>
      {shown.length > 0 && (
        <ul className="check-tools" id={listId}>
          {shown.map((name, index) => (
            // Names come from the partner and need not be unique.
            <li key={`${index}:${name}`}>
              <code>{name}</code>
            </li>
          ))}
        </ul>
      )}
      {folds && (
        <Button variant="ghost" className="check-tools-toggle" aria-expanded={open} aria-controls={listId} onClick={() => setOpen(!open)}>
          {open ? 'Show fewer tools' : `Show all ${check.tools.length} tools`}
        </Button>
      )}
      {unlisted > 0 && (open || !folds) && <p className="hint">And {unlisted} more not named here.</p>}
    </>
  );
}
