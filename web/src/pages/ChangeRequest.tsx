import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { CHANGE_REQUEST_COMMENT_MAX_LENGTH, CHANGE_REQUEST_TITLE_MAX_LENGTH, type ConflictResolution } from '@server/change-requests/contract';
import { CHANGE_REQUEST_ERRORS } from '@server/change-requests/errors';
import {
  applyChangeRequest,
  approveChangeRequest,
  type ChangeRequest,
  closeChangeRequest,
  commentOnChangeRequest,
  declineChangeRequest,
  updateChangeRequest,
} from '../api/changeRequests';
import { ApiError, errorMessage } from '../api/errors';
import type { Site } from '../api/types';
import {
  allSettled,
  approvalsText,
  type ConflictChoices,
  isoToLocalTime,
  isPending,
  localTimeToIso,
  type PathConflict,
  personName,
  proposedDraft,
  reproposal,
  resolutionOf,
  STATUS_LABELS,
  statusLabel,
} from '../changeRequests';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Field } from '../components/Field';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { ChangeItem } from '../editor/HistorySection';
import { sectionPath } from '../editor/sections';
import { WidgetPreview } from '../editor/WidgetPreview';
import '../editor/editor.css';
import { scheduledFailureReason } from '../auditText';
import { asSentence, formatDateTime, formatRelative } from '../format';
import { changeLines } from '../historyText';
import { changeRequestQuery, siteQuery, useChangeRequest, useWorkspaces } from '../queries';
import { queryKeys } from '../queryKeys';
import { CHANGE_REQUEST_WORDING, ConflictChoicesList } from '../review/ConflictChoices';
import { DescriptionField } from '../review/ProposeChangeDialog';
import '../review/review.css';
import { Link } from '../router';
import { useSession } from '../session';
import { useTitle } from '../useTitle';
import { can } from '../workspaceAccess';
import type { Workspace } from '../workspaces';

/** A change request's own screen at /sites/:id/change-requests/:crId. */
export function ChangeRequestPage({ siteId, changeRequestId }: { siteId: string; changeRequestId: string }) {
  const request = useChangeRequest(siteId, changeRequestId);
  // The site as it is now: the preview lays the proposal over it.
  const site = useQuery({ ...siteQuery(siteId), staleTime: 0 });
  const workspaces = useWorkspaces();
  const notFound = request.error instanceof ApiError && request.error.status === 404;
  useTitle(request.data?.title ?? (notFound ? 'Change request not found' : 'Change request'));

  if (notFound) {
    return (
      <section className="empty">
        <h1>Change request not found</h1>
        <p>There is no change request at this address. The site may have been deleted, or it belongs to a workspace you are not in.</p>
        <Link to="/" className="button button-primary">
          Back to your sites
        </Link>
      </section>
    );
  }
  if (request.isError) return <LoadFailed title="The change request could not be loaded" message={errorMessage(request.error)} error={request.error} onRetry={() => void request.refetch()} />;
  if (request.data === undefined || workspaces.isPending) return <Loading label="Loading the change request…" />;
  const workspace = workspaces.data?.find((each) => each.id === request.data.workspace_id);
  return <ChangeRequestScreen request={request.data} site={site.data?.site} siteError={site.error ?? undefined} workspace={workspace} />;
}

interface ScreenProps {
  request: ChangeRequest;
  site: Site | undefined;
  /** The site could not be read (in the trash, or a failure): the preview says so. */
  siteError: Error | undefined;
  workspace: Workspace | undefined;
}

function ChangeRequestScreen({ request, site, siteError, workspace }: ScreenProps) {
  const queryClient = useQueryClient();
  const { user } = useSession();
  const siteId = request.site_id;
  const role = workspace?.role;
  const isAuthor = request.author !== null && request.author.id === user?.id;
  const pending = isPending(request.status);
  const reviewRequired = workspace?.review.required === true;
  const approvalsNeeded = reviewRequired ? workspace.review.approvals : undefined;
  const approvalsMissing = approvalsNeeded === undefined ? 0 : Math.max(0, approvalsNeeded - request.approvals.length);
  const canReview = can(role, 'change_request.review') && !isAuthor;
  // The server's rule: its author (an editor or above), or an admin or owner.
  const canApply = (isAuthor && can(role, 'change_request.open')) || can(role, 'change_request.review');
  const approvedByMe = request.approvals.some((approval) => approval.user.id === user?.id);
  const lines = request.changes.flatMap(changeLines);

  /** Every change of the request shows at once, here and in the lists; an applied one changes the site too. */
  function adopt(next: ChangeRequest) {
    queryClient.setQueryData(changeRequestQuery(siteId, next.id).queryKey, next);
    void queryClient.invalidateQueries({ queryKey: queryKeys.changeRequests.all(), predicate: (query) => query.queryKey[1] !== 'detail' });
    if (next.status === 'applied') {
      void queryClient.invalidateQueries({ queryKey: queryKeys.sites.detail(siteId) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.sites.versions(siteId) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.sites.lists() });
    }
  }

  const [notice, setNotice] = useState<string>();
  const [conflicts, setConflicts] = useState<PathConflict[]>();
  const [choices, setChoices] = useState<ConflictChoices>({});
  const [declining, setDeclining] = useState(false);
  const [declineComment, setDeclineComment] = useState('');
  const [closing, setClosing] = useState(false);

  const act = useMutation({
    mutationFn: (action: () => Promise<ChangeRequest>) => action(),
    onMutate: () => setNotice(undefined),
    onSuccess: (next) => adopt(next),
    onError: (error) => {
      if (error instanceof ApiError && error.code === CHANGE_REQUEST_ERRORS.CHANGE_REQUEST_CONFLICT && error.extensions.conflicts !== undefined) {
        setConflicts(error.extensions.conflicts);
        setChoices({});
      }
      // Whatever was refused, the request may have moved on (approved, applied, closed by someone else).
      void queryClient.invalidateQueries({ queryKey: changeRequestQuery(siteId, request.id).queryKey });
    },
  });
  const isConflict = act.error instanceof ApiError && act.error.code === CHANGE_REQUEST_ERRORS.CHANGE_REQUEST_CONFLICT;

  function run(action: () => Promise<ChangeRequest>, done: string, after?: () => void) {
    act.mutate(action, {
      onSuccess: () => {
        setNotice(done);
        after?.();
      },
    });
  }

  const applyNow = () => run(() => applyChangeRequest(siteId, request.id, {}), 'Applied: the change is live.');
  const applyResolved = (resolve: Record<string, ConflictResolution>) =>
    run(() => applyChangeRequest(siteId, request.id, { resolve }), 'Applied with your choices: the change is live.', () => setConflicts(undefined));
  const proposeAgain = (now: Site, conflictsNow: PathConflict[]) =>
    run(
      () => updateChangeRequest(siteId, request.id, { changes: reproposal(now, request.changes, conflictsNow, choices) }),
      'Proposed again against the site as it is now. Its approvals were withdrawn: it needs approving again.',
      () => setConflicts(undefined),
    );

  return (
    <>
      <div className="page-header">
        <div className="workspace-heading">
          <Link to={sectionPath(siteId, 'change-requests')} className="back-link">
            ← Change requests of {site?.name ?? 'the site'}
          </Link>
          <h1>{request.title}</h1>
          <p className="change-request-meta">
            <span className="badge">{statusLabel(request, approvalsNeeded)}</span>
            <span>
              Proposed by {personName(request.author)}{' '}
              <time dateTime={request.created_at} title={formatDateTime(request.created_at)}>
                {formatRelative(request.created_at)}
              </time>
            </span>
            <span>from version {request.base_version}</span>
          </p>
        </div>
      </div>

      {notice !== undefined && <Alert kind="success">{notice}</Alert>}
      {act.error !== null && !isConflict && (
        <Alert kind="error" title="That did not go through">
          <p>{errorMessage(act.error)}</p>
        </Alert>
      )}
      <StatusNote request={request} />

      <div className="change-request-layout">
        <div className="change-request-column">
          {conflicts !== undefined && pending && (
            <section className="card" aria-labelledby="conflicts-title">
              <div className="card-header">
                <div>
                  <h2 id="conflicts-title">The site changed since this was proposed</h2>
                  <p>
                    {conflicts.length === 1 ? 'One setting was' : `${conflicts.length} settings were`} changed meanwhile to another value than the proposal’s. Nothing was applied.
                    Choose for each which value to keep; settings the site did not change are applied as proposed.
                  </p>
                </div>
              </div>
              <ConflictChoicesList conflicts={conflicts} choices={choices} onChoose={(path, choice) => setChoices({ ...choices, [path]: choice })} wording={CHANGE_REQUEST_WORDING} />
              {!allSettled(conflicts, choices) && <p className="muted">Choose a value for every setting listed to go on.</p>}
              <div className="change-request-actions">
                {canApply && (
                  <Button variant="primary" disabled={!allSettled(conflicts, choices) || approvalsMissing > 0} busy={act.isPending} onClick={() => applyResolved(resolutionOf(conflicts, choices))}>
                    Apply with these choices
                  </Button>
                )}
                {isAuthor && request.status === 'open' && (
                  <Button disabled={!allSettled(conflicts, choices) || site === undefined} busy={act.isPending} onClick={() => site !== undefined && proposeAgain(site, conflicts)}>
                    Propose again with these choices
                  </Button>
                )}
              </div>
              {isAuthor && request.status === 'open' && <p className="hint">Proposing again makes the site as it is now the request’s base, and withdraws its approvals: it needs approving again.</p>}
            </section>
          )}

          {request.description.trim() !== '' && (
            <section className="card" aria-labelledby="description-title">
              <h2 id="description-title">Description</h2>
              <p className="change-request-description">{request.description}</p>
            </section>
          )}

          <section className="card" aria-labelledby="changes-title">
            <div className="card-header">
              <div>
                <h2 id="changes-title">Changes</h2>
                <p>Each setting as it was at version {request.base_version}, and as proposed.</p>
              </div>
            </div>
            <ul className="history-changes" aria-label="Proposed changes">
              {lines.map((line, index) => (
                <ChangeItem key={`${line.label}-${index}`} line={line} />
              ))}
            </ul>
          </section>

          {request.status === 'failed' && request.failure?.conflicts !== undefined && (
            <section className="card" aria-labelledby="failure-title">
              <h2 id="failure-title">Why the scheduled change failed</h2>
              <p>The site changed meanwhile at these settings. Propose the change again from the editor to settle them.</p>
              <ConflictChoicesList conflicts={request.failure.conflicts} choices={{}} onChoose={() => undefined} wording={CHANGE_REQUEST_WORDING} readOnly />
            </section>
          )}

          <CommentsSection request={request} canComment={pending && can(role, 'change_request.open')} onCommented={adopt} />
        </div>

        <div className="change-request-column">
          <section className="card" aria-labelledby="review-title">
            <h2 id="review-title">Review</h2>
            <p>
              {approvalsText(request.approvals.length, approvalsNeeded)}
              {request.approvals.length > 0 && `: ${request.approvals.map((approval) => personName(approval.user)).join(', ')}`}
              {approvalsNeeded === undefined && ' · review is not required in this workspace'}
            </p>
            {pending && approvalsMissing > 0 && (
              <p className="muted">
                Needs {approvalsMissing === 1 ? '1 more approval' : `${approvalsMissing} more approvals`} from an admin or owner {isAuthor ? 'other than you ' : ''}before it can be applied.
              </p>
            )}
            {pending && (
              <div className="change-request-actions">
                {canReview && request.status === 'open' && !approvedByMe && (
                  <Button variant="primary" busy={act.isPending} onClick={() => run(() => approveChangeRequest(siteId, request.id), 'Approved.')}>
                    Approve
                  </Button>
                )}
                {canReview && approvedByMe && <span className="muted">You approved this.</span>}
                {canApply && (
                  <Button variant={approvalsMissing === 0 ? 'primary' : 'secondary'} disabled={approvalsMissing > 0} busy={act.isPending} onClick={applyNow}>
                    Apply now
                  </Button>
                )}
                {canReview && (
                  <Button variant="danger" disabled={act.isPending} onClick={() => setDeclining(true)}>
                    Decline…
                  </Button>
                )}
                {(isAuthor || canReview) && (
                  <Button disabled={act.isPending} onClick={() => setClosing(true)}>
                    Withdraw…
                  </Button>
                )}
              </div>
            )}
            {pending && canApply && <ScheduleForm request={request} disabled={approvalsMissing > 0 || act.isPending} onSchedule={(at) => run(() => applyChangeRequest(siteId, request.id, { at }), 'Scheduled.')} />}
          </section>

          {isAuthor && request.status === 'open' && <EditSection request={request} onSaved={adopt} />}

          <section className="card" aria-labelledby="preview-title">
            <h2 id="preview-title" className="visually-hidden">
              Preview of the proposal
            </h2>
            {siteError !== undefined ? (
              <p className="muted">No preview: the site could not be loaded. {errorMessage(siteError)}</p>
            ) : site === undefined ? (
              <Loading label="Loading the preview…" />
            ) : (
              <WidgetPreview draft={proposedDraft(site, request.changes)} caption="as a visitor would see it with this change" />
            )}
          </section>
        </div>
      </div>

      <ConfirmDialog
        open={declining}
        title={`Decline “${request.title}”?`}
        confirmLabel="Decline"
        danger
        busy={act.isPending}
        onCancel={() => setDeclining(false)}
        onConfirm={() => run(() => declineChangeRequest(siteId, request.id, declineComment.trim() === '' ? undefined : declineComment), 'Declined.', () => setDeclining(false))}
      >
        <p>It will not go live. Its author is told, with your comment if you write one.</p>
        <DescriptionField label="Comment (optional)" hint="Why it is declined, for its author." value={declineComment} maxLength={CHANGE_REQUEST_COMMENT_MAX_LENGTH} onChange={(event) => setDeclineComment(event.target.value)} />
      </ConfirmDialog>
      <ConfirmDialog
        open={closing}
        title={`Withdraw “${request.title}”?`}
        confirmLabel="Withdraw"
        busy={act.isPending}
        onCancel={() => setClosing(false)}
        onConfirm={() => run(() => closeChangeRequest(siteId, request.id), 'Withdrawn: it will not go live.', () => setClosing(false))}
      >
        <p>It will not go live{request.status === 'scheduled' ? ' at its scheduled time' : ''}. The request stays in the site’s list of earlier requests.</p>
      </ConfirmDialog>
    </>
  );
}

/** What the status means now: when it is scheduled, which version it became, why it failed. */
function StatusNote({ request }: { request: ChangeRequest }) {
  if (request.status === 'scheduled' && request.scheduled_at !== null) {
    return (
      <Alert kind="info" title="Scheduled">
        <p>
          It goes live on <time dateTime={request.scheduled_at}>{formatDateTime(request.scheduled_at)}</time> (your time), unless it is withdrawn or declined first.
        </p>
      </Alert>
    );
  }
  if (request.status === 'applied') {
    return (
      <Alert kind="success" title="Applied">
        <p>
          It is live as version {request.applied_version} of the site. <Link to={sectionPath(request.site_id, 'history')}>See it in History</Link>
        </p>
      </Alert>
    );
  }
  if (request.status === 'failed') {
    return (
      <Alert kind="error" title="The scheduled change failed">
        <p>{failureSentence(request.failure?.code)}</p>
      </Alert>
    );
  }
  if (request.status === 'declined' || request.status === 'closed') {
    return (
      <Alert kind="info" title={STATUS_LABELS[request.status]}>
        <p>It will not go live.</p>
      </Alert>
    );
  }
  return null;
}

/** Apply at a time: a date and time in the person's own time zone, sent as an ISO 8601 instant. */
function ScheduleForm({ request, disabled, onSchedule }: { request: ChangeRequest; disabled: boolean; onSchedule: (at: string) => void }) {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const { register, handleSubmit, formState } = useForm<{ at: string }>({ defaultValues: { at: request.scheduled_at === null ? '' : isoToLocalTime(request.scheduled_at) } });
  return (
    <form className="schedule-form" onSubmit={handleSubmit(({ at }) => onSchedule(localTimeToIso(at) ?? at))} noValidate>
      <Field
        label={request.status === 'scheduled' ? 'Move to another time' : 'Or apply at a time'}
        type="datetime-local"
        hint={`Your time (${zone}).`}
        min={isoToLocalTime(new Date().toISOString())}
        error={formState.errors.at?.message}
        {...register('at', {
          validate: (value) => {
            const iso = localTimeToIso(value);
            if (iso === undefined) return 'Choose a date and a time.';
            return new Date(iso).getTime() > Date.now() || 'Choose a time in the future.';
          },
        })}
      />
      <Button type="submit" disabled={disabled}>
        Schedule
      </Button>
    </form>
  );
}

/** The author edits the title and description of an open request; approvals are withdrawn. */
function EditSection({ request, onSaved }: { request: ChangeRequest; onSaved: (next: ChangeRequest) => void }) {
  const [editing, setEditing] = useState(false);
  const { register, handleSubmit, reset, formState } = useForm<{ title: string; description: string }>({ defaultValues: { title: request.title, description: request.description } });
  const save = useMutation({
    mutationFn: (values: { title: string; description: string }) => updateChangeRequest(request.site_id, request.id, { title: values.title.trim(), description: values.description }),
    onSuccess: (next) => {
      onSaved(next);
      setEditing(false);
    },
  });
  const titleError = formState.errors.title?.message ?? (save.error instanceof ApiError ? save.error.fieldMessage('title') : undefined);
  return (
    <section className="card" aria-labelledby="edit-title">
      <div className="card-header">
        <div>
          <h2 id="edit-title">Your request</h2>
          <p>Editing it withdraws its approvals: reviewers approve what they read.</p>
        </div>
        {!editing && (
          <Button
            onClick={() => {
              reset({ title: request.title, description: request.description });
              save.reset();
              setEditing(true);
            }}
          >
            Edit…
          </Button>
        )}
      </div>
      {editing && (
        <form onSubmit={handleSubmit((values) => save.mutate(values))} noValidate>
          {save.error !== null && titleError === undefined && <Alert kind="error">{errorMessage(save.error)}</Alert>}
          <Field label="Title" maxLength={CHANGE_REQUEST_TITLE_MAX_LENGTH} required error={titleError === undefined ? undefined : asSentence(titleError)} {...register('title', { validate: (value) => value.trim() !== '' || 'Enter a title.' })} />
          <DescriptionField label="Description" {...register('description')} />
          <div className="row">
            <Button onClick={() => setEditing(false)} disabled={save.isPending}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" busy={save.isPending}>
              Save request
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}

function CommentsSection({ request, canComment, onCommented }: { request: ChangeRequest; canComment: boolean; onCommented: (next: ChangeRequest) => void }) {
  const headingId = useId();
  const { register, handleSubmit, reset, formState } = useForm<{ body: string }>({ defaultValues: { body: '' } });
  const comment = useMutation({
    mutationFn: (body: string) => commentOnChangeRequest(request.site_id, request.id, body),
    onSuccess: (next) => {
      onCommented(next);
      reset({ body: '' });
    },
  });
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Comments</h2>
      {request.comments.length === 0 ? (
        <p className="muted">No comments yet.</p>
      ) : (
        <ol className="comment-list">
          {request.comments.map((each, index) => (
            <li key={`${each.at}-${index}`}>
              <strong>{personName(each.user)}</strong>{' '}
              <time className="muted small" dateTime={each.at} title={formatDateTime(each.at)}>
                {formatRelative(each.at)}
              </time>
              <p className="comment-body">{each.body}</p>
            </li>
          ))}
        </ol>
      )}
      {canComment && (
        <form onSubmit={handleSubmit(({ body }) => comment.mutate(body.trim()))} noValidate>
          {comment.error !== null && <Alert kind="error">{errorMessage(comment.error)}</Alert>}
          <DescriptionField
            label="Add a comment"
            hint="Every member of the workspace reads it."
            maxLength={CHANGE_REQUEST_COMMENT_MAX_LENGTH}
            error={formState.errors.body?.message}
            {...register('body', { validate: (value) => value.trim() !== '' || 'Write a comment first.', onChange: () => comment.reset() })}
          />
          <Button type="submit" busy={comment.isPending}>
            Comment
          </Button>
        </form>
      )}
    </section>
  );
}

/** Why the scheduled change failed, as a sentence, whatever check stopped it when it was due. */
function failureSentence(code: string | undefined): string {
  const reason = code === undefined ? undefined : scheduledFailureReason(code);
  return reason === undefined ? 'Nothing was applied.' : `${asSentence(reason)} Nothing was applied.`;
}
