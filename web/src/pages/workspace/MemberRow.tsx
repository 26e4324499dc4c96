import { useId, useState } from 'react';
import { Button } from '../../components/Button';
import { formatDateTime, formatRelative } from '../../format';
import { canRemoveMember, ROLE_LABELS, rolesOffered, type WorkspaceRole } from '../../workspaceAccess';
import type { Member } from '../../workspaces';

export function displayName(member: Member): string {
  return member.user.name.trim() === '' ? member.user.email : member.user.name;
}

interface MemberRowProps {
  member: Member;
  callerRole: WorkspaceRole;
  isSelf: boolean;
  busy: boolean;
  onRoleChange: (role: WorkspaceRole) => void;
  onRemove: () => void;
}

export function MemberRow({ member, callerRole, isSelf, busy, onRoleChange, onRemove }: MemberRowProps) {
  const selectId = useId();
  const offered = rolesOffered(callerRole, member.role, isSelf);
  const name = displayName(member);
  // The choice is sent by its own button, not on change: arrowing through a closed select fires a
  // change per step, and passing over Owner must not hand the workspace over.
  const [chosen, setChosen] = useState<WorkspaceRole>(member.role);
  const pending = chosen !== member.role;
  return (
    <li className="member-row">
      <div className="list-main">
        <strong>
          {name}
          {isSelf && <span className="muted"> (you)</span>}
        </strong>
        {name !== member.user.email && <span className="muted small member-email">{member.user.email}</span>}
        <span className="muted small">
          Joined <time dateTime={member.joined_at} title={formatDateTime(member.joined_at)}>{formatRelative(member.joined_at)}</time>
        </span>
      </div>
      {offered.length > 0 ? (
        <div className="field member-role">
          <label htmlFor={selectId} className="visually-hidden">
            Role of {name}
          </label>
          <select id={selectId} value={chosen} disabled={busy} onChange={(event) => setChosen(offered.find((role) => role === event.target.value) ?? member.role)}>
            {offered.map((role) => (
              <option key={role} value={role}>
                {ROLE_LABELS[role]}
              </option>
            ))}
          </select>
        </div>
      ) : (
        <span className="badge">
          <span className="visually-hidden">Role: </span>
          {ROLE_LABELS[member.role]}
        </span>
      )}
      {pending && (
        <Button variant="primary" busy={busy} onClick={() => onRoleChange(chosen)} aria-label={`Make ${name} ${ROLE_LABELS[chosen].toLowerCase()}`}>
          Change role
        </Button>
      )}
      {canRemoveMember(callerRole, member.role, isSelf) && (
        <Button className="button-danger-outline" onClick={onRemove} aria-label={`Remove ${name}`}>
          Remove
        </Button>
      )}
    </li>
  );
}
