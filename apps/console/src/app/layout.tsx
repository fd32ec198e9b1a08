import { Suspense } from 'react';
import { NavLink as RouterNavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import {
  AppShell,
  Burger,
  Button,
  Group,
  NavLink,
  SegmentedControl,
  Select,
  Stack,
  Text,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useAuth, usePermissions } from '../auth/auth-context';
import { LoadingRows } from '../components/common';

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  return (
    <SegmentedControl
      size="xs"
      aria-label={t('layout.language')}
      value={i18n.language.startsWith('ru') ? 'ru' : 'en'}
      onChange={(v) => void i18n.changeLanguage(v)}
      data={[
        { value: 'en', label: 'EN' },
        { value: 'ru', label: 'RU' },
      ]}
    />
  );
}

export function ThemeSwitch() {
  const { t } = useTranslation();
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  return (
    <Button
      size="xs"
      variant="default"
      onClick={() => setColorScheme(scheme === 'dark' ? 'light' : 'dark')}
      aria-label={scheme === 'dark' ? t('layout.lightTheme') : t('layout.darkTheme')}
    >
      {scheme === 'dark' ? '☀' : '☾'}
    </Button>
  );
}

function TeamSwitch() {
  const { t } = useTranslation();
  const auth = useAuth();
  if (auth.mode !== 'session' || auth.memberships.length === 0) {
    if (auth.mode === 'key')
      return (
        <Text size="sm" c="dimmed">
          {t('layout.keyMode')}
        </Text>
      );
    if (auth.mode === 'admin')
      return (
        <Text size="sm" c="dimmed">
          {t('layout.operatorMode')}
        </Text>
      );
    return null;
  }
  return (
    <Select
      size="xs"
      w={200}
      aria-label={t('layout.team')}
      value={auth.teamId}
      allowDeselect={false}
      onChange={(v) => v && auth.switchTeam(v)}
      data={auth.memberships.map((m) => ({ value: m.teamId, label: `${m.teamName} · ${t(`roles.${m.role}`)}` }))}
    />
  );
}

/** The team, language, theme and sign-out: in the header, or in the menu on a narrow screen. */
function HeaderControls({ onSignOut }: { onSignOut: () => void }) {
  const { t } = useTranslation();
  return (
    <>
      <TeamSwitch />
      <LanguageSwitch />
      <ThemeSwitch />
      <Button size="xs" variant="subtle" onClick={onSignOut}>
        {t('layout.signOut')}
      </Button>
    </>
  );
}

export function Layout() {
  const { t } = useTranslation();
  const auth = useAuth();
  const can = usePermissions();
  const [opened, { toggle, close }] = useDisclosure();
  const location = useLocation();
  const navigate = useNavigate();
  // signing out forgets where the user was: the next sign-in starts from the page that fits it
  const signOut = async () => {
    await auth.signOut();
    void navigate('/', { replace: true });
  };
  const links = [
    { to: '/', label: t('nav.overview'), show: can.hasTeam },
    { to: '/keys', label: t('nav.keys'), show: can.hasTeam },
    { to: '/projects', label: t('nav.projects'), show: can.hasTeam },
    { to: '/knowledge-bases', label: t('nav.knowledgeBases'), show: can.hasTeam },
    { to: '/mcp', label: t('mcp.nav'), show: auth.mode === 'session' && can.hasTeam },
    { to: '/usage', label: t('nav.usage'), show: can.hasTeam },
    { to: '/billing', label: t('nav.billing'), show: auth.mode === 'session' && can.hasTeam },
    { to: '/requests', label: t('nav.requests'), show: can.hasTeam },
    { to: '/models', label: t('nav.models'), show: can.hasTeam },
    { to: '/members', label: t('nav.members'), show: auth.mode === 'session' && can.canManageMembers },
    { to: '/alerts', label: t('teamAdmin.alerts.nav'), show: auth.mode === 'session' && can.canManageMembers },
    { to: '/audit-log', label: t('nav.audit'), show: auth.mode === 'session' && can.canSeeAudit },
    { to: '/operator', label: t('nav.operator'), show: can.isOperator },
    { to: '/providers', label: t('nav.providers'), show: can.isOperator },
  ].filter((l) => l.show);
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t('layout.menu')} />
            <Text fw={700}>{t('app.name')}</Text>
          </Group>
          <Group gap="sm" wrap="nowrap" visibleFrom="sm">
            <HeaderControls onSignOut={() => void signOut()} />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label={t('layout.navigation')} component="nav">
        {links.map((l) => (
          <NavLink
            key={l.to}
            component={RouterNavLink}
            to={l.to}
            end={l.to === '/'}
            label={l.label}
            active={l.to === '/' ? location.pathname === '/' : location.pathname.startsWith(l.to)}
            onClick={close}
          />
        ))}
        {/* a narrow screen has no room in the header: its controls live in the menu */}
        <Stack gap="sm" p="xs" mt="md" hiddenFrom="sm" align="flex-start" data-testid="menu-controls">
          <HeaderControls onSignOut={() => void signOut()} />
        </Stack>
        {auth.email && (
          <Text size="xs" mt="auto" p="xs">
            {auth.email}
          </Text>
        )}
      </AppShell.Navbar>
      <AppShell.Main>
        <Suspense fallback={<LoadingRows rows={6} />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
