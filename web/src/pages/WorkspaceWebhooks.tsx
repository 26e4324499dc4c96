import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { WEBHOOK_SECRET_OVERLAP_HOURS, WEBHOOKS_PER_WORKSPACE } from '@server/webhooks/contract';
import { errorMessage } from '../api/errors';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyableValue } from '../components/CopyableValue';
import { OneTimeSecretPanel } from '../components/OneTimeSecretPanel';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { WorkspaceAdminGate, WorkspaceScreenHeader } from '../components/WorkspaceAdminGate';
import { WebhookForm, type WebhookFormValues } from '../components/WebhookForm';
import { formatDateTime, formatRelative } from '../format';
import { useLeaveGuard } from '../router';
import { attemptText, type BadgeKind, deliveryState, eventLabel, type Webhook, type WebhookDelivery, type WebhookWithSecret, webhookState } from '../webhookText';
import { type Workspace } from '../workspaces';
import { createWebhook, deleteWebhook, redeliverDelivery, rotateWebhookSecret, sendTestEvent, updateWebhook } from '../api/webhooks';
import { deliveriesQuery, useWebhooks, webhooksQuery } from '../queries';
import { queryKeys } from '../queryKeys';

/** While a delivery is on its way, its log is read again this often, so the answer shows up. */
const PENDING_REFRESH_MS = 2_000;

/** Settings > Workspaces > one workspace > Webhooks: where its events are sent, and how that went (admins). */
export function WorkspaceWebhooksPage({ workspaceId }: { workspaceId: string }) {
  return (
    <WorkspaceAdminGate workspaceId={workspaceId} title="Webhooks" action="webhook.manage" refusal="Only admins and owners of this workspace manage its webhooks.">
      {(workspace) => <WebhooksScreen workspace={workspace} />}
    </WorkspaceAdminGate>
  );
}

/** A secret the server just showed, with what it belongs to. */
interface ShownSecret {
  webhook: WebhookWithSecret;
  rotated: boolean;
}

function WebhooksScreen({ workspace }: { workspace: Workspace }) {
  const queryClient = useQueryClient();
  const key = webhooksQuery(workspace.id).queryKey;
  const list = useWebhooks(workspace.id);
  const [secret, setSecret] = useState<ShownSecret>();
  const [notice, setNotice] = useState<string>();
  // Leaving while a secret is on screen loses it for good: ask first.
  useLeaveGuard(secret !== undefined, 'The signing secret has not been dismissed and will not be shown again. Leave anyway?');

  /** The list as the server now holds it, without asking again. */
  function updateList(change: (current: Webhook[]) => Webhook[]) {
    queryClient.setQueryData(key, (current) => (current === undefined ? current : change(current)));
  }

  function showSecret(webhook: WebhookWithSecret, rotated: boolean) {
    setNotice(undefined);
    setSecret({ webhook, rotated });
    const { secret: _shownOnce, ...withoutSecret } = webhook;
    updateList((current) => (current.some((each) => each.id === webhook.id) ? current.map((each) => (each.id === webhook.id ? withoutSecret : each)) : [...current, withoutSecret]));
  }

  async function create(values: WebhookFormValues) {
    showSecret(await createWebhook(workspace.id, values), false);
  }

  const count = list.data?.length ?? 0;
  return (
    <>
      <WorkspaceScreenHeader workspace={workspace} title="Webhooks">
        Siteward tells other services when something in {workspace.name} changes: each event is POSTed to your endpoint, signed as a Standard Webhook, retried for about a day until it is answered with 2xx, and logged here.
      </WorkspaceScreenHeader>

      {secret !== undefined && (
        <WebhookSecret
          shown={secret}
          onDone={() => {
            setSecret(undefined);
            document.getElementById('webhook-list-title')?.focus();
          }}
        />
      )}

      <section className="card" aria-labelledby="webhook-list-title">
        <div className="card-header">
          <div>
            <h2 id="webhook-list-title" tabIndex={-1}>
              Endpoints
            </h2>
            <p>
              {count} of {WEBHOOKS_PER_WORKSPACE} webhooks. A webhook whose deliveries keep failing is turned off after three days, and the workspace’s admins are mailed.
            </p>
          </div>
        </div>
        {notice !== undefined && <Alert kind="success">{notice}</Alert>}
        {list.isError ? (
          <LoadFailed title="The webhooks could not be loaded" message={errorMessage(list.error)} error={list.error} onRetry={() => void list.refetch()} />
        ) : list.data === undefined ? (
          <Loading label="Loading webhooks…" />
        ) : list.data.length === 0 ? (
          <div className="empty token-empty">
            <h3>No webhooks yet</h3>
            <p>Add one to redeploy a widget, sync a knowledge base or post to chat when a site changes, instead of asking the API over and over.</p>
          </div>
        ) : (
          <ul className="list webhook-list">
            {list.data.map((webhook) => (
              <WebhookRow
                key={webhook.id}
                workspace={workspace}
                webhook={webhook}
                onChanged={(changed) => updateList((current) => current.map((each) => (each.id === changed.id ? changed : each)))}
                onRotated={(rotated) => showSecret(rotated, true)}
                onDeleted={(deleted) => {
                  updateList((current) => current.filter((each) => each.id !== deleted.id));
                  if (secret?.webhook.id === deleted.id) setSecret(undefined);
                  setNotice(`Deleted the webhook to ${deleted.url}. Nothing more is sent to it.`);
                }}
              />
            ))}
          </ul>
        )}
      </section>

      <section className="card" aria-labelledby="webhook-create-title">
        <div className="card-header">
          <div>
            <h2 id="webhook-create-title">Add a webhook</h2>
            <p>Choose the events the endpoint needs. Its signing secret is shown once, when it is made.</p>
          </div>
        </div>
        {count >= WEBHOOKS_PER_WORKSPACE ? (
          <p className="muted">This workspace has {WEBHOOKS_PER_WORKSPACE} webhooks, the most it can have. Delete one to add another.</p>
        ) : (
          <div className="token-create">
            <WebhookForm idPrefix="new-webhook" initial={{ url: '', description: '', events: ['site.created', 'site.updated', 'site.deleted', 'site.restored'] }} submitLabel="Add webhook" onSubmit={create} />
          </div>
        )}
      </section>
    </>
  );
}

/** The signing secret, shown this once: the server keeps it encrypted and never answers with it again. */
function WebhookSecret({ shown, onDone }: { shown: ShownSecret; onDone: () => void }) {
  return (
    <OneTimeSecretPanel titleId="webhook-secret-title" title={shown.rotated ? 'The new signing secret' : 'The signing secret of your new webhook'} onDone={onDone}>
      <Alert kind="warning">
        Copy it into the receiver now: it will not be shown again.
        {shown.rotated && ` The previous secret also signs every event for the next ${WEBHOOK_SECRET_OVERLAP_HOURS} hours, so the receiver can switch without missing one.`}
      </Alert>
      <p className="muted small">For {shown.webhook.url}</p>
      <CopyableValue value={shown.webhook.secret} label="Signing secret" copyLabel="Copy secret" />
      <p className="hint">
        Check each request with any Standard Webhooks library: it verifies the <code>webhook-signature</code> header against the <code>webhook-id</code>, <code>webhook-timestamp</code> and body.
      </p>
    </OneTimeSecretPanel>
  );
}

function Badge({ kind, children }: { kind: BadgeKind; children: string }) {
  return <span className={kind === 'neutral' ? 'badge' : `badge badge-${kind}`}>{children}</span>;
}

interface WebhookRowProps {
  workspace: Workspace;
  webhook: Webhook;
  onChanged: (webhook: Webhook) => void;
  onRotated: (webhook: WebhookWithSecret) => void;
  onDeleted: (webhook: Webhook) => void;
}

type Confirming = 'rotate' | 'delete' | undefined;

function WebhookRow({ workspace, webhook, onChanged, onRotated, onDeleted }: WebhookRowProps) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const [confirming, setConfirming] = useState<Confirming>();
  const [notice, setNotice] = useState<string>();
  const state = webhookState(webhook);
  const deliveriesId = `webhook-${webhook.id}-deliveries`;
  // With several webhooks on the screen, each button says which one it acts on to screen readers.
  const which = <span className="visually-hidden"> (webhook to {webhook.url})</span>;

  const toggle = useMutation({
    mutationFn: () => updateWebhook(workspace.id, webhook.id, { enabled: !webhook.enabled }),
    onSuccess: (changed) => {
      onChanged(changed);
      setNotice(changed.enabled ? 'Turned on: new events are sent again.' : 'Turned off: no events are queued for it until it is turned on.');
    },
  });
  const test = useMutation({
    mutationFn: () => sendTestEvent(workspace.id, webhook.id),
    onSuccess: () => {
      setNotice('A test event is on its way. Its delivery is in the log below.');
      setShowDeliveries(true);
      void queryClient.invalidateQueries({ queryKey: queryKeys.workspaces.deliveries(workspace.id, webhook.id) });
    },
  });
  const rotate = useMutation({
    mutationFn: () => rotateWebhookSecret(workspace.id, webhook.id),
    onSuccess: (rotated) => {
      setConfirming(undefined);
      onRotated(rotated);
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteWebhook(workspace.id, webhook.id),
    onSuccess: () => {
      setConfirming(undefined);
      onDeleted(webhook);
    },
  });
  const actionError = toggle.error ?? test.error;

  async function save(values: WebhookFormValues) {
    // Only what changed: a new URL asks for a recent sign-in, the rest does not.
    const changes: Partial<WebhookFormValues> = {};
    if (values.url !== webhook.url) changes.url = values.url;
    if (values.description !== webhook.description) changes.description = values.description;
    if (values.events.join() !== webhook.events.join()) changes.events = values.events;
    if (Object.keys(changes).length > 0) onChanged(await updateWebhook(workspace.id, webhook.id, changes));
    setEditing(false);
    setNotice('Saved.');
  }

  return (
    <li className="webhook-row">
      {editing ? (
        <div className="list-main">
          <WebhookForm
            idPrefix={`webhook-${webhook.id}`}
            initial={{ url: webhook.url, description: webhook.description, events: webhook.events as WebhookFormValues['events'] }}
            submitLabel="Save webhook"
            onSubmit={save}
            onCancel={() => setEditing(false)}
          />
        </div>
      ) : (
        <div className="list-main">
          <strong className="webhook-url">{webhook.url}</strong>
          {webhook.description !== '' && <span className="muted">{webhook.description}</span>}
          <div className="token-meta webhook-meta">
            <Badge kind={state.kind}>{state.label}</Badge>
            {webhook.events.map((type) => (
              <span key={type} className="badge">
                {eventLabel(type)}
              </span>
            ))}
          </div>
          {state.detail !== undefined && <p className="muted small">{state.detail}</p>}
          {webhook.previous_secret_expires_at !== null && (
            <p className="muted small">
              The previous secret also signs until <time dateTime={webhook.previous_secret_expires_at}>{formatDateTime(webhook.previous_secret_expires_at)}</time>.
            </p>
          )}
        </div>
      )}
      {!editing && (
        <div className="row webhook-actions">
          <Button onClick={() => setShowDeliveries(!showDeliveries)} aria-expanded={showDeliveries} aria-controls={deliveriesId}>
            {showDeliveries ? 'Hide deliveries' : 'Deliveries'}
            {which}
          </Button>
          <Button onClick={() => test.mutate()} busy={test.isPending} disabled={!webhook.enabled}>
            Send test event{which}
          </Button>
          <Button onClick={() => setEditing(true)}>Edit{which}</Button>
          <Button onClick={() => toggle.mutate()} busy={toggle.isPending}>
            {webhook.enabled ? 'Turn off' : 'Turn on'}
            {which}
          </Button>
          <Button
            onClick={() => {
              rotate.reset();
              setConfirming('rotate');
            }}
          >
            Rotate secret{which}
          </Button>
          <Button
            variant="danger"
            onClick={() => {
              remove.reset();
              setConfirming('delete');
            }}
          >
            Delete{which}
          </Button>
        </div>
      )}
      {(notice !== undefined || actionError !== null) && (
        <div className="webhook-wide" aria-live="polite">
          {actionError !== null ? <Alert kind="error">{errorMessage(actionError)}</Alert> : <Alert kind="success">{notice}</Alert>}
        </div>
      )}
      {showDeliveries && (
        <div className="webhook-wide" id={deliveriesId}>
          <DeliveryLog workspace={workspace} webhook={webhook} />
        </div>
      )}
      <ConfirmDialog
        open={confirming === 'rotate'}
        title="Make a new signing secret?"
        confirmLabel="Rotate secret"
        busy={rotate.isPending}
        onConfirm={() => rotate.mutate()}
        onCancel={() => setConfirming(undefined)}
      >
        {rotate.error !== null && <Alert kind="error">{errorMessage(rotate.error)}</Alert>}
        <p>
          The new secret is shown once. For {WEBHOOK_SECRET_OVERLAP_HOURS} hours every event is signed with both, so {webhook.url} keeps accepting them while you switch it over.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'delete'}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        danger
        busy={remove.isPending}
        onConfirm={() => remove.mutate()}
        onCancel={() => setConfirming(undefined)}
      >
        {remove.error !== null && <Alert kind="error">{errorMessage(remove.error)}</Alert>}
        <p>Nothing more is sent to {webhook.url}, including events still waiting to be delivered, and its delivery log is deleted. This cannot be undone.</p>
      </ConfirmDialog>
    </li>
  );
}

/** The webhook's deliveries, newest first, with every attempt; read again while one is on its way. */
function DeliveryLog({ workspace, webhook }: { workspace: Workspace; webhook: Webhook }) {
  const queryClient = useQueryClient();
  const key = queryKeys.workspaces.deliveries(workspace.id, webhook.id);
  const log = useInfiniteQuery({
    ...deliveriesQuery(workspace.id, webhook.id),
    refetchInterval: (query) => (query.state.data?.pages.some((page) => page.deliveries.some((delivery) => delivery.status === 'pending')) === true ? PENDING_REFRESH_MS : false),
  });
  const redeliver = useMutation({
    mutationFn: (delivery: WebhookDelivery) => redeliverDelivery(workspace.id, webhook.id, delivery.id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  const deliveries = log.data?.pages.flatMap((page) => page.deliveries) ?? [];

  return (
    <section className="webhook-deliveries" aria-label={`Deliveries to ${webhook.url}`}>
      <h3>Deliveries</h3>
      {redeliver.isError && <Alert kind="error">{errorMessage(redeliver.error)}</Alert>}
      {log.isError ? (
        <LoadFailed title="The deliveries could not be loaded" message={errorMessage(log.error)} onRetry={() => void log.refetch()} />
      ) : log.data === undefined ? (
        <Loading label="Loading deliveries…" />
      ) : deliveries.length === 0 ? (
        <p className="muted">Nothing has been sent yet. Send a test event to try the endpoint.</p>
      ) : (
        <>
          <ul className="list delivery-list">
            {deliveries.map((delivery) => (
              <DeliveryRow key={delivery.id} delivery={delivery} busy={redeliver.isPending && redeliver.variables?.id === delivery.id} onRedeliver={() => redeliver.mutate(delivery)} />
            ))}
          </ul>
          {log.hasNextPage && (
            <Button onClick={() => void log.fetchNextPage()} busy={log.isFetchingNextPage}>
              Show older deliveries
            </Button>
          )}
        </>
      )}
    </section>
  );
}

function DeliveryRow({ delivery, busy, onRedeliver }: { delivery: WebhookDelivery; busy: boolean; onRedeliver: () => void }) {
  const state = deliveryState(delivery);
  const last = delivery.attempts.at(-1);
  return (
    <li>
      <div className="list-main">
        <span className="token-meta">
          <strong>{eventLabel(delivery.event_type)}</strong>
          <Badge kind={state.kind}>{state.label}</Badge>
        </span>
        <span className="muted small">
          <time dateTime={delivery.created_at} title={formatDateTime(delivery.created_at)}>
            {formatRelative(delivery.created_at)}
          </time>
          {last !== undefined && ` · ${attemptText(last)}`}
          {state.detail !== undefined && ` · ${state.detail}`}
        </span>
        {delivery.attempts.length > 0 && (
          <details className="delivery-attempts">
            <summary>
              {delivery.attempts.length === 1 ? '1 attempt' : `${delivery.attempts.length} attempts`} · id <code>{delivery.id}</code>
            </summary>
            <ol>
              {delivery.attempts.map((attempt) => (
                <li key={attempt.at}>
                  <time dateTime={attempt.at}>{formatDateTime(attempt.at)}</time>: {attemptText(attempt)}
                </li>
              ))}
            </ol>
          </details>
        )}
      </div>
      {delivery.status !== 'pending' && (
        <Button onClick={onRedeliver} busy={busy}>
          Redeliver
          <span className="visually-hidden">
            {' '}
            {eventLabel(delivery.event_type)}, {formatDateTime(delivery.created_at)}
          </span>
        </Button>
      )}
    </li>
  );
}
