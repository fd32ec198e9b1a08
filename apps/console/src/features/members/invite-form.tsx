import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Code, Group, Select, Stack, TextInput } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { CopyValue, ErrorAlert } from '../../components/common';

export type Role = components['schemas']['RoleDto']['role'];
export const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];

/** Invites someone into a team by email with a role; the invitation link is shown to copy. */
export function InviteForm({
  teamId,
  defaultRole = 'member',
  onInvited,
}: {
  teamId: string;
  defaultRole?: Role;
  onInvited?: () => void;
}) {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>(defaultRole);
  const invite = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/teams/{team_id}/invitations', {
          params: { path: { team_id: teamId } },
          body: { email: email.trim(), role },
        }),
      ),
    onSuccess: () => {
      setEmail('');
      onInvited?.();
    },
  });
  const link = invite.data ? new URL(invite.data.url, window.location.origin).toString() : null;
  return (
    <Stack gap="xs">
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          invite.mutate();
        }}
      >
        <Group align="flex-end">
          <TextInput
            label={t('members.email')}
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <Select
            label={t('members.role')}
            w={180}
            allowDeselect={false}
            value={role}
            onChange={(v) => v && setRole(v as Role)}
            data={ROLES.map((r) => ({ value: r, label: t(`roles.${r}`) }))}
          />
          <Button type="submit" loading={invite.isPending} disabled={!email.trim()}>
            {t('members.invite')}
          </Button>
        </Group>
      </form>
      <ErrorAlert error={invite.error} />
      {link && (
        <Alert color="teal" title={t('members.invited')}>
          <Group>
            <Code data-testid="invitation-link">{link}</Code>
            <CopyValue value={link} label={t('members.copyLink')} />
          </Group>
        </Alert>
      )}
    </Stack>
  );
}
