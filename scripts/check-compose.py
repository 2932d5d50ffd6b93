"""Checks compose.yaml without a container engine that speaks compose profiles (called by
scripts/container-check.sh): it parses as YAML (merge keys resolved), and in each profile every service
has an image, a health check and a restart policy, every `depends_on` names a service of the same
profile with a condition (and `service_healthy` only on one with a health check), every named volume
is declared, every bind mount exists, every ${VAR} has a default, every port is published on
LINKLINE_BIND (localhost by default), and PostgreSQL is the major version the docs name as tested. The expected shape: "embedded" is
one service with one volume, "scale-out" two Linkline instances, PostgreSQL, Redis and a proxy."""
import os
import re
import sys

import yaml

path = sys.argv[1] if len(sys.argv) > 1 else 'compose.yaml'
root = os.path.dirname(os.path.abspath(path))
text = open(path, encoding='utf-8').read()
problems = []

for var in re.findall(r'\$\{([^}]*)\}', text):
    if not re.fullmatch(r'[A-Z_][A-Z0-9_]*:-[^}]*', var):
        problems.append(f'${{{var}}} has no default (":-"): the file would not load without it set')

doc = yaml.safe_load(text)
services = doc.get('services') or {}
volumes = doc.get('volumes') or {}
profiles = sorted({p for s in services.values() for p in s.get('profiles', [])})
if profiles != ['embedded', 'scale-out']:
    problems.append(f'profiles are {profiles}, expected embedded and scale-out')

linkline_image = services.get('linkline', {}).get('image')
for profile in profiles:
    active = {name: s for name, s in services.items() if not s.get('profiles') or profile in s['profiles']}
    used_volumes = set()
    for name, service in active.items():
        where = f'{profile}/{name}'
        if not service.get('image'):
            problems.append(f'{where}: no image')
        if not service.get('healthcheck', {}).get('test'):
            problems.append(f'{where}: no health check')
        if not service.get('restart'):
            problems.append(f'{where}: no restart policy')
        depends = service.get('depends_on') or {}
        if isinstance(depends, list):
            problems.append(f'{where}: depends_on without conditions')
            depends = {d: {} for d in depends}
        for target, spec in depends.items():
            if target not in active:
                problems.append(f'{where}: depends on {target}, which is not in the profile')
                continue
            condition = (spec or {}).get('condition')
            if condition not in ('service_healthy', 'service_started', 'service_completed_successfully'):
                problems.append(f'{where}: depends on {target} without a condition')
            if condition == 'service_healthy' and not active[target].get('healthcheck'):
                problems.append(f'{where}: waits for {target} to be healthy, which has no health check')
        # "8080:8080" publishes on every interface; the README promises localhost until LINKLINE_BIND says otherwise.
        for port in service.get('ports') or []:
            if not str(port).startswith('${LINKLINE_BIND:-127.0.0.1}:'):
                problems.append(f'{where}: port {port} is not published on ${{LINKLINE_BIND:-127.0.0.1}}')
        for mount in service.get('volumes') or []:
            source = mount.split(':')[0] if isinstance(mount, str) else mount.get('source')
            if source.startswith(('.', '/')):
                if not os.path.exists(os.path.join(root, source)):
                    problems.append(f'{where}: bind mount {source} does not exist')
            elif source not in volumes:
                problems.append(f'{where}: volume {source} is not declared')
            else:
                used_volumes.add(source)
    print(f'{profile}: services {", ".join(sorted(active))}; volumes {", ".join(sorted(used_volumes))}')
    if profile == 'embedded' and (len(active) != 1 or len(used_volumes) != 1):
        problems.append('embedded: expected one service and one volume')
    if profile == 'scale-out':
        instances = [n for n, s in active.items() if s.get('image') == linkline_image]
        others = {n for n in active if n not in instances}
        if len(instances) != 2 or others != {'postgres', 'redis', 'proxy'}:
            problems.append(f'scale-out: expected two Linkline instances, postgres, redis and proxy, got {sorted(active)}')
        for name in instances:
            env = active[name].get('environment') or {}
            if not str(env.get('DATABASE_URL', '')).startswith('postgres://') or not env.get('REDIS_URL'):
                problems.append(f'scale-out/{name}: DATABASE_URL and REDIS_URL must name the PostgreSQL and Redis services')
        # The major version docs/operations.md names as tested (the test suite's PostgreSQL).
        tested = re.search(r'Tested with PostgreSQL (\d+)', open(os.path.join(root, 'docs/operations.md'), encoding='utf-8').read())
        image = str(active.get('postgres', {}).get('image', ''))
        if not tested or not image.startswith(f'postgres:{tested.group(1)}-'):
            problems.append(f'scale-out/postgres: image {image} is not the tested major version ({tested.group(1) if tested else "?"})')

for problem in problems:
    print(f'compose.yaml: {problem}', file=sys.stderr)
sys.exit(1 if problems else 0)
