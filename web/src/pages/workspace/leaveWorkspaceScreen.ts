import { useQueryClient } from '@tanstack/react-query';
import { navigate } from '../../router';
import { queryKeys } from '../../queryKeys';
import type { WorkspacesNotice } from '../../workspaces';

/**
 * After leaving or deleting the workspace: back to the list, which says what happened, and the
 * workspace's sites and the person's role in it are gone or changed everywhere on screen.
 */
export function useLeaveWorkspaceScreen(): (notice: string) => Promise<void> {
  const queryClient = useQueryClient();
  return async (notice) => {
    const state: WorkspacesNotice = { notice };
    navigate('/settings/workspaces', { replace: true, force: true, state });
    await Promise.all([queryClient.invalidateQueries({ queryKey: queryKeys.workspaces.all() }), queryClient.invalidateQueries({ queryKey: queryKeys.sites.all() })]);
  };
}
