import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { PREVIOUS_KEY_OVERLAP_MS } from '@server/delivery/contract';
import { errorMessage } from '../api/errors';
import { rotatePublicKey } from '../api/sites';
import type { Site } from '../api/types';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyableValue } from '../components/CopyableValue';
import { LoadFailed } from '../components/LoadFailed';
import { formatDateTime, formatRelative } from '../format';
import { siteInstallQuery, useSiteInstall } from '../queries';
import './install.css';

const OVERLAP_HOURS = PREVIOUS_KEY_OVERLAP_MS / (60 * 60 * 1000);

interface InstallSectionProps {
  siteId: string;
  name: string;
  /** Editors and above rotate the key; everyone in the workspace sees it. */
  canRotate: boolean;
  /** The site with its new key, and its new ETag: the editor adopts them. */
  onRotated: (site: Site, etag: string | null) => void;
}

/**
 * The Install section: the line to paste into the pages that should show the site, its public key
 * and rotating it, and where the configuration was lately fetched from (docs/embedding.md).
 */
export function InstallSection({ siteId, name, canRotate, onRotated }: InstallSectionProps) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [rotatedTo, setRotatedTo] = useState<string>();
  const install = useSiteInstall(siteId);
  const rotation = useMutation({
    mutationFn: () => rotatePublicKey(siteId),
    onSuccess: (rotated) => {
      setConfirming(false);
      setRotatedTo(rotated.site.public_key);
      onRotated(rotated.site, rotated.etag);
      void queryClient.invalidateQueries({ queryKey: siteInstallQuery(siteId).queryKey });
    },
    onError: () => setConfirming(false),
  });

  if (install.isPending) {
    return (
      <p className="hint" role="status">
        Loading…
      </p>
    );
  }
  if (install.isError) return <LoadFailed title="The install details could not be loaded" message={errorMessage(install.error)} error={install.error} onRetry={() => void install.refetch()} />;
  const details = install.data;
  const overlapEnds = new Date(Date.now() + PREVIOUS_KEY_OVERLAP_MS).toISOString();

  return (
    <div className="install-section">
      <section className="card" aria-labelledby="install-snippet-title">
        <div className="card-header">
          <div>
            <h3 id="install-snippet-title">Put the site on your pages</h3>
            <p>
              Paste this line into every page that should show the widget, before <code>&lt;/head&gt;</code> or anywhere in the body. It loads the site's public configuration and keeps it
              current: a change you save here reaches open pages within seconds.
            </p>
          </div>
        </div>
        <CopyableValue value={details.snippet} label="Embed snippet" copyLabel="Copy snippet" command />
        <p className="hint">
          Your page's widget code reads <code>window.Siteward.config</code> and listens for the <code>siteward:config</code> event. Visitors' browsers receive the site's name, colour and its
          Widget, Portal, Branding and Public theme settings, and nothing else: no other setting, no e-mail address, no partner token.
        </p>
      </section>

      <section className="card" aria-labelledby="install-key-title">
        <div className="card-header">
          <div>
            <h3 id="install-key-title">Public key</h3>
            <p>It names the site in the snippet. It is not a secret: every visitor's browser sees it.</p>
          </div>
          {canRotate && (
            // Only one previous key is kept: while it answers, the server refuses another rotation (409), which would stop it at once.
            <Button onClick={() => setConfirming(true)} disabled={rotation.isPending || details.previous_key !== null}>
              Rotate key…
            </Button>
          )}
        </div>
        <CopyableValue value={details.public_key} label="Current public key" copyLabel="Copy key" />
        {details.previous_key !== null && (
          <p className="install-previous-key">
            The previous key, <code>{details.previous_key.public_key}</code>, keeps working until{' '}
            <time dateTime={details.previous_key.expires_at}>{formatDateTime(details.previous_key.expires_at)}</time>. Update your pages before then. The key can be rotated again once it has stopped.
          </p>
        )}
        <span className="visually-hidden" role="status">
          {rotatedTo !== undefined ? `The key was rotated. The new key is ${rotatedTo}; the previous one keeps working for ${OVERLAP_HOURS} hours.` : ''}
        </span>
        {rotation.error !== null && (
          <Alert kind="error" title="The key was not rotated">
            <p>{errorMessage(rotation.error)}</p>
          </Alert>
        )}
      </section>

      <section className="card" aria-labelledby="install-origins-title">
        <div className="card-header">
          <div>
            <h3 id="install-origins-title">Where it was fetched from</h3>
            <p>The pages that loaded the configuration lately, by their address as their browsers gave it. Updated every few minutes.</p>
          </div>
          <Button variant="ghost" onClick={() => void install.refetch()} busy={install.isFetching}>
            Refresh
          </Button>
        </div>
        {details.fetched_from.length === 0 ? (
          <p className="install-origins-empty">No page has loaded it yet. Once a page with the snippet is opened, its address appears here within a few minutes.</p>
        ) : (
          <ul className="install-origins">
            {details.fetched_from.map((entry) => (
              <li key={entry.origin}>
                <span className="install-origin">{entry.origin}</span>
                <time dateTime={entry.last_seen_at} title={formatDateTime(entry.last_seen_at)}>
                  {formatRelative(entry.last_seen_at)}
                </time>
              </li>
            ))}
          </ul>
        )}
      </section>

      <ConfirmDialog
        open={confirming}
        title={`Rotate the public key of ${name}?`}
        confirmLabel="Rotate key"
        busy={rotation.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => rotation.mutate()}
      >
        <p>
          The site gets a new key, and the snippet changes with it. The current key, <code>{details.public_key}</code>, keeps working for {OVERLAP_HOURS} hours, until about{' '}
          {formatDateTime(overlapEnds)}: put the new snippet on your pages before then.
        </p>
      </ConfirmDialog>
    </div>
  );
}
