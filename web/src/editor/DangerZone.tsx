import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { queryKeys } from '../queryKeys';
import { errorMessage } from '../api/errors';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { deleteSite, restoreFromTrash } from '../api/sites';
import { navigate } from '../router';
import { useToasts } from '../toasts';
import { sectionPath } from './sections';

interface DangerZoneProps {
  siteId: string;
  name: string;
}

/**
 * Deleting the site, kept apart from everyday settings and confirmed in a dialog that names it.
 * Once deleted, the editor has nothing left to show: the Sites list follows, with Undo in a toast.
 */
export function DangerZone({ siteId, name }: DangerZoneProps) {
  const queryClient = useQueryClient();
  const toasts = useToasts();
  const [confirming, setConfirming] = useState(false);
  const deletion = useMutation({
    mutationFn: () => deleteSite(siteId),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: queryKeys.sites.detail(siteId) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.sites.lists() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.trash.all() });
      setConfirming(false);
      // The dialog said unsaved changes are dropped: leaving asks nothing more.
      navigate('/', { force: true });
      toasts.show({ message: `${name} was moved to the trash.`, action: { label: 'Undo', run: () => void undo() } });
    },
  });

  /** Undo is the trash's restore: the site comes back as it was, with its history. */
  async function undo() {
    try {
      await restoreFromTrash(siteId);
    } catch (error) {
      toasts.show({ message: `${name} is still in the trash: ${errorMessage(error)}` });
      return;
    }
    void queryClient.invalidateQueries({ queryKey: queryKeys.sites.lists() });
    void queryClient.invalidateQueries({ queryKey: queryKeys.trash.all() });
    navigate(sectionPath(siteId, 'general'), { force: true });
  }
  return (
    <section className="card danger-zone" aria-labelledby="danger-zone-title">
      <div className="card-header">
        <div>
          <h3 id="danger-zone-title">Danger zone</h3>
          <p>Deleting the site takes it away from everyone in its workspace. It waits in the trash, with its history, until it is deleted for good; admins can bring it back from there.</p>
        </div>
        <Button variant="danger" onClick={() => setConfirming(true)}>
          Delete this site…
        </Button>
      </div>
      {deletion.error !== null && !confirming && (
        <Alert kind="error" title="The site was not deleted">
          <p>{errorMessage(deletion.error)}</p>
        </Alert>
      )}
      <ConfirmDialog
        open={confirming}
        title={`Delete ${name}?`}
        confirmLabel="Delete site"
        danger
        busy={deletion.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => deletion.mutate(undefined, { onError: () => setConfirming(false) })}
      >
        <p>
          {name} moves to the trash, where admins can restore it until it is deleted for good. Unsaved changes in this editor are dropped.
        </p>
      </ConfirmDialog>
    </section>
  );
}
