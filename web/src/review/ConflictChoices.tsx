import type { ConflictResolution } from '@server/change-requests/contract';
import { useId } from 'react';
import { type ConflictChoices as Choices, conflictLines, type PathConflict } from '../changeRequests';
import { Swatch } from '../components/Swatch';
import { fieldLabel } from '../siteDraft';
import './review.css';

/** How one side of a conflict is named: a change request's ("the proposal", "the current value") or the editor's ("mine", "theirs"). */
export interface ConflictWording {
  /** Column headings for the value now and the proposed one. */
  current: string;
  proposed: string;
  /** The two choices. */
  keepProposed: string;
  takeCurrent: string;
}

export const CHANGE_REQUEST_WORDING: ConflictWording = { current: 'Now', proposed: 'Proposed', keepProposed: 'Keep the proposal', takeCurrent: 'Take the current value' };
export const EDITOR_WORDING: ConflictWording = { current: 'Theirs', proposed: 'Yours', keepProposed: 'Keep mine', takeCurrent: 'Take theirs' };

interface ConflictChoicesProps {
  conflicts: readonly PathConflict[];
  choices: Choices;
  onChoose: (path: string, choice: ConflictResolution) => void;
  wording: ConflictWording;
  /** Read only: a scheduled apply that failed shows its conflicts without choices. */
  readOnly?: boolean;
}

/**
 * Each path two changes set differently, in the forms' words: the setting, its value before either
 * change, now, and as proposed, then one choice for the path (a setting inside a group, or a whole
 * group as older requests name it).
 */
export function ConflictChoicesList({ conflicts, choices, onChoose, wording, readOnly = false }: ConflictChoicesProps) {
  const name = useId();
  return (
    <ul className="conflict-list">
      {conflicts.map((conflict, index) => (
        <li key={conflict.path}>
          <fieldset className="conflict-path">
            <legend>{fieldLabel(conflict.path)}</legend>
            <table className="conflict-values">
              <thead>
                <tr>
                  <th scope="col">Setting</th>
                  <th scope="col">Before</th>
                  <th scope="col">{wording.current}</th>
                  <th scope="col">{wording.proposed}</th>
                </tr>
              </thead>
              <tbody>
                {conflictLines(conflict).map((line, lineIndex) => (
                  <tr key={`${line.label}-${lineIndex}`}>
                    <th scope="row">{line.label}</th>
                    <td>
                      <Swatch colour={line.swatch.base} />
                      {line.base}
                    </td>
                    <td>
                      <Swatch colour={line.swatch.current} />
                      {line.current}
                    </td>
                    <td>
                      <Swatch colour={line.swatch.proposed} />
                      {line.proposed}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {!readOnly && (
              <div className="conflict-choice" role="radiogroup" aria-label={`Which value ${fieldLabel(conflict.path)} keeps`}>
                <label>
                  <input type="radio" name={`${name}-${index}`} checked={choices[conflict.path] === 'proposed'} onChange={() => onChoose(conflict.path, 'proposed')} />
                  {wording.keepProposed}
                </label>
                <label>
                  <input type="radio" name={`${name}-${index}`} checked={choices[conflict.path] === 'current'} onChange={() => onChoose(conflict.path, 'current')} />
                  {wording.takeCurrent}
                </label>
              </div>
            )}
          </fieldset>
        </li>
      ))}
    </ul>
  );
}
