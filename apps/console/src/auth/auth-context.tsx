import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, setCredential, unwrap, type Credential } from '../api/client';
import { login, logout, me, type Membership, type SessionInfo } from './session-api';

export type Role = 'owner' | 'admin' | 'member' | 'viewer' | 'operator';

export interface AuthState {
  status: 'loading' | 'signed-out' | 'signed-in';
  mode: Credential['kind'] | null;
  email: string | null;
  memberships: Membership[];
  teamId: string | null;
  teamName: string | null;
  role: Role | null;
  isOperator: boolean;
}

interface AuthApi extends AuthState {
  signInWithPassword(email: string, password: string): Promise<void>;
  signInWithKey(apiKey: string): Promise<void>;
  signInWithAdminToken(token: string): Promise<void>;
  switchTeam(teamId: string): void;
  /** Reads the session again (memberships change when a team is deleted or left). */
  reload(): Promise<void>;
  signOut(): Promise<void>;
}

const TEAM_KEY = 'console.team';
const signedOut: AuthState = {
  status: 'signed-out',
  mode: null,
  email: null,
  memberships: [],
  teamId: null,
  teamName: null,
  role: null,
  isOperator: false,
};

const AuthContext = createContext<AuthApi | null>(null);

function fromSession(s: SessionInfo): AuthState {
  const remembered = localStorage.getItem(TEAM_KEY);
  const m = s.memberships.find((x) => x.teamId === remembered) ?? s.memberships[0];
  setCredential({ kind: 'session', csrfToken: s.csrfToken, teamId: m?.teamId ?? null });
  return {
    status: 'signed-in',
    mode: 'session',
    email: s.user.email,
    memberships: s.memberships,
    teamId: m?.teamId ?? null,
    teamName: m?.teamName ?? null,
    role: (m?.role as Role) ?? (s.user.isOperator ? 'operator' : null),
    isOperator: s.user.isOperator,
  };
}

export function AuthProvider({ children, initial }: { children: ReactNode; initial?: AuthState }) {
  const [state, setState] = useState<AuthState>(initial ?? { ...signedOut, status: 'loading' });
  const [csrf, setCsrf] = useState<string | null>(null);
  const queryClient = useQueryClient();

  useEffect(() => {
    if (initial) return;
    let live = true;
    me()
      .then((s) => {
        if (!live) return;
        if (s) {
          setCsrf(s.csrfToken);
          setState(fromSession(s));
        } else setState(signedOut);
      })
      .catch(() => live && setState(signedOut));
    return () => {
      live = false;
    };
  }, [initial]);

  const signInWithPassword = useCallback(async (email: string, password: string) => {
    const s = await login(email, password);
    setCsrf(s.csrfToken);
    setState(fromSession(s));
  }, []);

  const signInWithKey = useCallback(async (apiKey: string) => {
    setCredential({ kind: 'key', apiKey });
    try {
      const balance = unwrap(await api.GET('/api/v1/balance'));
      setState({
        ...signedOut,
        status: 'signed-in',
        mode: 'key',
        teamId: balance.team_id,
        teamName: null,
        role: 'member',
      });
    } catch (err) {
      setCredential(null);
      throw err;
    }
  }, []);

  const signInWithAdminToken = useCallback(async (token: string) => {
    setCredential({ kind: 'admin', token });
    try {
      unwrap(await api.GET('/api/v1/admin/teams', { params: { query: { limit: 1 } } }));
      setState({ ...signedOut, status: 'signed-in', mode: 'admin', role: 'operator', isOperator: true });
    } catch (err) {
      setCredential(null);
      throw err;
    }
  }, []);

  const switchTeam = useCallback(
    (teamId: string) => {
      setState((s) => {
        const m = s.memberships.find((x) => x.teamId === teamId);
        if (!m || !csrf) return s;
        localStorage.setItem(TEAM_KEY, teamId);
        setCredential({ kind: 'session', csrfToken: csrf, teamId });
        return { ...s, teamId, teamName: m.teamName, role: m.role as Role };
      });
      queryClient.removeQueries();
    },
    [csrf, queryClient],
  );

  const reload = useCallback(async () => {
    if (state.mode !== 'session') return;
    const s = await me();
    queryClient.removeQueries();
    if (!s) {
      setCredential(null);
      setState(signedOut);
      return;
    }
    setCsrf(s.csrfToken);
    setState(fromSession(s));
  }, [state.mode, queryClient]);

  const signOut = useCallback(async () => {
    if (state.mode === 'session') await logout().catch(() => undefined);
    setCredential(null);
    setCsrf(null);
    queryClient.clear();
    setState(signedOut);
  }, [state.mode, csrf, queryClient]);

  const value = useMemo(
    () => ({ ...state, signInWithPassword, signInWithKey, signInWithAdminToken, switchTeam, reload, signOut }),
    [state, signInWithPassword, signInWithKey, signInWithAdminToken, switchTeam, reload, signOut],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthApi {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error('useAuth outside AuthProvider');
  return ctx;
}

/** What the signed-in user may do in the current team; the server enforces the same rules. */
export function usePermissions() {
  const { role, mode, isOperator, teamId } = useAuth();
  return {
    canWrite: role === 'owner' || role === 'admin' || role === 'member',
    canManageKeys: mode !== 'key' && (role === 'owner' || role === 'admin' || role === 'member' || mode === 'admin'),
    canManageMembers: role === 'owner' || role === 'admin',
    canSeeAudit: role === 'owner' || role === 'admin' || isOperator,
    isOperator,
    // an operator who belongs to no team has the operator area only
    hasTeam: mode === 'key' || (mode === 'session' && !!teamId),
  };
}
