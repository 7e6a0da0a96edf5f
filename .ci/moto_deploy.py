"""Creates template.yaml and synthesized CDK templates as stacks in moto's CloudFormation.

See .ci/moto-deploy. moto implements a subset of resource types; this script reports, per
stack, every resource with its status and the types moto could not create, so a reader sees
what the deploy proof covers and what it does not.
"""

import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile

import boto3
from samcli.yamlhelper import yaml_parse
from samtranslator.translator.transform import transform

REGION = "us-east-1"
ASSET_BUCKET = "moto-deploy-assets"
# Offline and anonymous: the SAM transform and boto3 need a region, never real credentials.
os.environ["AWS_DEFAULT_REGION"] = REGION
for var in ("AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
    os.environ.pop(var, None)

# Parameters for template.yaml: MSK with SCRAM in provisioned mode (queue, alarms, dashboard, KMS
# key for the secret), and self-managed Kafka in a VPC with Athena.
SAM_CASES = {
    "sam-msk-scram": {
        "Title": "Moto.Deploy-Msk",
        "BucketName": "moto-archive-msk",
        "InputTopic": "vehicle-telemetry",
        "ClusterArn": "arn:aws:kafka:us-east-1:123456789012:cluster/c/abcd-1",
        "MskAuth": "scram",
        "SaslScramSecretArn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:AmazonMSK_a-AbCdEf",
        "SourceSecretsKmsKeyArn": "arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555",
        "BucketEncryption": "kms",
    },
    "sam-self-managed-vpc-athena": {
        "Title": "moto-deploy-sm",
        "BucketName": "moto-archive-sm",
        "InputTopic": "vehicle-telemetry",
        "SourceType": "self-managed",
        "SelfManagedAuth": "none",
        "BootstrapServers": "b-1.example.com:9092",
        "SubnetIds": "subnet-0aaa,subnet-0bbb,subnet-0ccc",
        "SecurityGroupIds": "sg-0ddd",
        "Athena": "true",
    },
    # Restore=true: the restore Lambda (in a VPC) and the Step Functions Distributed Map.
    "sam-msk-iam-restore": {
        "Title": "moto-deploy-restore",
        "BucketName": "moto-archive-restore",
        "InputTopic": "vehicle-telemetry",
        "ClusterArn": "arn:aws:kafka:us-east-1:123456789012:cluster/c/abcd-1",
        "Restore": "true",
        "IncludeKafkaMetadata": "true",
        "RestoreBootstrapServers": "b-1.dr.example.com:9098",
        "RestoreClusterArn": "arn:aws:kafka:us-east-1:123456789012:cluster/dr/efgh-2",
        "RestoreSubnetIds": "subnet-0aaa,subnet-0bbb",
        "RestoreSecurityGroupIds": "sg-0ddd",
    },
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_moto():
    port = free_port()
    server = shutil.which("moto_server", path=os.path.join(".venv", "bin"))
    log = open(os.environ.get("MOTO_DEPLOY_LOG", os.devnull), "w")
    proc = subprocess.Popen(
        [server, "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "/moto-api/", timeout=2)
            return proc, url
        except Exception:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("moto_server did not start on " + url)


def client(service, url):
    return boto3.client(
        service,
        region_name=REGION,
        endpoint_url=url,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def stand_in_jar():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("README", "stand-in for function/target/kafka-s3-archiver.jar")
    return buf.getvalue()


class NoManagedPolicies:
    """The template attaches no managed policies (its role is its own)."""

    def load(self):
        return {}


def sam_template(parameters):
    with open("template.yaml", encoding="utf-8") as f:
        template = yaml_parse(f.read())
    # The function is built by `sam build`; here a stand-in zip in moto's S3 takes its place.
    template["Globals"]["Function"]["CodeUri"] = f"s3://{ASSET_BUCKET}/function.zip"
    for resource in template.get("Resources", {}).values():
        if resource.get("Type") == "AWS::Serverless::Function" and "CodeUri" in resource.get(
            "Properties", {}
        ):
            resource["Properties"]["CodeUri"] = f"s3://{ASSET_BUCKET}/function.zip"
    return transform(template, parameters, NoManagedPolicies())


def cdk_template(path):
    with open(path, encoding="utf-8") as f:
        template = json.load(f)
    # Assets live in the bootstrap bucket: point every Code at the stand-in zip.
    for resource in template.get("Resources", {}).values():
        if resource.get("Type") == "AWS::Lambda::Function":
            resource["Properties"]["Code"] = {"S3Bucket": ASSET_BUCKET, "S3Key": "function.zip"}
    # The bootstrap version check reads an SSM parameter `cdk bootstrap` creates.
    template.get("Rules", {}).pop("CheckBootstrapVersion", None)
    template.get("Parameters", {}).pop("BootstrapVersion", None)
    return template


def resolve_conditions(template, parameters):
    """Evaluates Conditions and Fn::If, and drops AWS::NoValue, as CloudFormation does.

    moto 5.2.5 evaluates conditions itself but fails on an AWS::NoValue inside an IAM role's
    Policies list (TypeError in moto/iam/models.py); resolving them here first works around that
    and changes nothing CloudFormation would see.
    """
    declared = template.get("Parameters", {})
    values = {k: parameters.get(k, v.get("Default", "")) for k, v in declared.items()}
    values.update({"AWS::Region": REGION, "AWS::AccountId": "123456789012", "AWS::Partition": "aws"})
    conditions = template.get("Conditions", {})
    known = {}

    def value(x):
        if isinstance(x, dict) and len(x) == 1:
            (fn, arg), = x.items()
            if fn == "Ref":
                return values[arg]
            if fn == "Fn::Sub" and isinstance(arg, str):
                out = arg
                for k, v in values.items():
                    out = out.replace("${" + k + "}", str(v))
                return out
            if fn == "Fn::Split":
                return str(value(arg[1])).split(arg[0])
            if fn == "Fn::Select":
                return value(arg[1])[int(value(arg[0]))]
            if fn == "Fn::Join":
                items = value(arg[1])
                return arg[0].join(str(value(i)) for i in items)
            return cond_expr(x)
        if isinstance(x, list):
            return [value(i) for i in x]
        return x

    def cond_expr(x):
        (fn, arg), = x.items()
        if fn == "Fn::Equals":
            a, b = (value(i) for i in arg)
            a = ",".join(a) if isinstance(a, list) else str(a)
            b = ",".join(b) if isinstance(b, list) else str(b)
            return a == b
        if fn == "Fn::Not":
            return not cond_expr(arg[0])
        if fn == "Fn::And":
            return all(cond_expr(i) for i in arg)
        if fn == "Fn::Or":
            return any(cond_expr(i) for i in arg)
        if fn == "Condition":
            return condition(arg)
        raise ValueError("condition function " + fn)

    def condition(name):
        if name not in known:
            known[name] = cond_expr(conditions[name])
        return known[name]

    no_value = object()

    def walk(x):
        if isinstance(x, dict):
            if len(x) == 1 and "Fn::If" in x:
                c, a, b = x["Fn::If"]
                return walk(a if condition(c) else b)
            if x == {"Ref": "AWS::NoValue"}:
                return no_value
            out = {}
            for k, v in x.items():
                r = walk(v)
                if r is not no_value:
                    out[k] = r
            return out
        if isinstance(x, list):
            return [r for r in (walk(i) for i in x) if r is not no_value]
        return x

    out = dict(template)
    for section in ("Resources", "Outputs"):
        kept = {}
        for k, v in template.get(section, {}).items():
            if "Condition" in v and not condition(v["Condition"]):
                continue
            v = {kk: vv for kk, vv in v.items() if kk != "Condition"}
            kept[k] = walk(v)
        out[section] = kept
    out.pop("Conditions", None)
    out.pop("Rules", None)
    return out


# Found by trial with moto 5.2.5: no CloudFormation support for all but the Lambda two (moto skips them,
# and what refers to them breaks), and moto's Lambda implements event source mappings for SQS,
# DynamoDB and Kinesis only ("Missing EventSourceArn" / "Missing FunctionName" for Kafka).
MOTO_CANNOT_CREATE = {
    "AWS::S3::BucketPolicy",
    "AWS::SQS::QueuePolicy",
    "AWS::CloudWatch::Alarm",  # created through the CloudWatch API instead: alarm_deploy_plan
    "AWS::Glue::Database",
    "AWS::Glue::Table",
    "AWS::SecretsManager::Secret",
    "AWS::Lambda::Alias",
    "AWS::Lambda::EventSourceMapping",
    # moto 5.2 has an s3tables API but no CloudFormation model for it: "No Moto CloudFormation
    # support for AWS::S3Tables::TableBucket", then GetAtt TableBucketARN fails with
    # "AttributeError: 'NoneType' object has no attribute 'has_cfn_attr'" and the stack is refused.
    "AWS::S3Tables::TableBucket",
    "AWS::S3Tables::Namespace",
}


# ARN-shaped, since IAM validates policy resources.
PLACEHOLDER = "arn:aws:cloudformation:us-east-1:123456789012:moto-cannot-create/"


def refers_to(x, names):
    """Whether a property value is a Ref or GetAtt of one of names."""
    if isinstance(x, dict) and len(x) == 1:
        if x.get("Ref") in names:
            return True
        if "Fn::GetAtt" in x:
            target = x["Fn::GetAtt"]
            target = target.split(".")[0] if isinstance(target, str) else target[0]
            return target in names
    return False


def without_unsupported(template):
    """Removes what moto cannot create; references to it become placeholders."""
    removed = {
        k for k, v in template["Resources"].items() if v.get("Type") in MOTO_CANNOT_CREATE
    }
    # A permission on a removed function alias cannot exist either: moto's AddPermission looks the
    # function up (the iceberg maintenance rule's permission is on the live alias).
    for k, v in template["Resources"].items():
        if v.get("Type") == "AWS::Lambda::Permission" and refers_to(
            v.get("Properties", {}).get("FunctionName"), removed
        ):
            removed.add(k)

    def walk(x):
        if isinstance(x, str):
            for r in removed:
                x = re.sub(r"\$\{" + r + r"(\.[A-Za-z.]+)?\}", PLACEHOLDER + r, x)
            return x
        if isinstance(x, dict):
            if len(x) == 1 and x.get("Ref") in removed:
                return PLACEHOLDER + x["Ref"]
            if len(x) == 1 and "Fn::GetAtt" in x:
                target = x["Fn::GetAtt"]
                target = target.split(".")[0] if isinstance(target, str) else target[0]
                if target in removed:
                    return PLACEHOLDER + target
            return {k: walk(v) for k, v in x.items()}
        if isinstance(x, list):
            return [walk(i) for i in x]
        return x

    out = dict(template)
    resources = {}
    for k, v in template["Resources"].items():
        if k in removed:
            continue
        v = walk(v)
        deps = v.get("DependsOn")
        if deps is not None:
            deps = [d for d in ([deps] if isinstance(deps, str) else deps) if d not in removed]
            v["DependsOn"] = deps
            if not deps:
                v.pop("DependsOn")
        resources[k] = v
    out["Resources"] = resources
    out["Outputs"] = walk(template.get("Outputs", {}))
    return out, {k: template["Resources"][k]["Type"] for k in removed}


ALARM_INT_FIELDS = ("EvaluationPeriods", "DatapointsToAlarm", "Period")
ALARM_FLOAT_FIELDS = ("Threshold",)


def alarm_deploy_plan(template, parameters):
    """The alarms moto's CloudFormation cannot create, with each intrinsic turned into an Output.

    moto 5.2.5 has a CloudWatch API (PutMetricAlarm, DescribeAlarms) but no CloudFormation model
    for AWS::CloudWatch::Alarm. Each intrinsic of an alarm's properties (Ref, Fn::Sub,
    Fn::FindInMap, Fn::GetAtt...) becomes a stack Output, which moto resolves; the alarm is then
    created through the API from the resolved properties (alarms_from_outputs). Fn::FindInMap
    keyed by a Number parameter is resolved here: moto looks the number up as an int and fails
    (KeyError: 60) where CloudFormation uses the string.
    """
    outputs = {}
    alarms = {}
    declared = template.get("Parameters", {})

    def key(x):
        if isinstance(x, dict) and set(x) == {"Ref"} and x["Ref"] in declared:
            return str(parameters.get(x["Ref"], declared[x["Ref"]].get("Default", "")))
        return x

    def find_in_map(arg):
        name, first, second = (key(a) for a in arg)
        if all(isinstance(a, str) for a in (name, first, second)):
            return template["Mappings"][name][first][second]
        return None

    def intrinsic(x):
        return isinstance(x, dict) and len(x) == 1 and next(iter(x)).startswith(("Ref", "Fn::"))

    def walk(x):
        if isinstance(x, dict) and set(x) == {"Fn::FindInMap"}:
            found = find_in_map(x["Fn::FindInMap"])
            if found is not None:
                return found
        if intrinsic(x):
            name = f"MotoAlarmValue{len(outputs)}"
            outputs[name] = {"Value": x}
            return {"__output__": name}
        if isinstance(x, dict):
            return {k: walk(v) for k, v in x.items()}
        if isinstance(x, list):
            return [walk(i) for i in x]
        return x

    for logical, r in template["Resources"].items():
        if r.get("Type") == "AWS::CloudWatch::Alarm":
            alarms[logical] = walk(r.get("Properties", {}))
    return alarms, outputs


def alarms_from_outputs(cw, stack_name, alarms, outputs):
    """Creates each planned alarm through moto's CloudWatch API; returns (created, errors)."""

    def fill(x):
        if isinstance(x, dict) and set(x) == {"__output__"}:
            return outputs[x["__output__"]]
        if isinstance(x, dict):
            return {k: fill(v) for k, v in x.items()}
        if isinstance(x, list):
            return [fill(i) for i in x]
        return x

    def typed(x):
        if isinstance(x, dict):
            out = {}
            for k, v in x.items():
                v = typed(v)
                if k in ALARM_INT_FIELDS:
                    v = int(v)
                elif k in ALARM_FLOAT_FIELDS:
                    v = float(v)
                elif k == "ReturnData" and isinstance(v, str):
                    v = v.lower() == "true"
                out[k] = v
            return out
        if isinstance(x, list):
            return [typed(i) for i in x]
        return x

    created, errors = {}, {}
    for logical, props in alarms.items():
        props = typed(fill(props))
        props.setdefault("AlarmName", f"{stack_name}-{logical}")
        try:
            cw.put_metric_alarm(**props)
            created[logical] = props["AlarmName"]
        except Exception as e:
            errors[logical] = str(e)
    return created, errors


def evaluate_on_missing_data(cw, alarm):
    """The heartbeat's state over a window where the function never ran.

    moto stores alarms but never evaluates them, and has no metric math. So the data comes from
    moto (GetMetricData for each MetricStat of the alarm over its evaluation range: nothing, as
    no invocation ever happened), and the state follows CloudWatch's documented rule for the
    alarm as moto returns it: a period without data counts as breaching when TreatMissingData is
    breaching, and DatapointsToAlarm breaching periods of EvaluationPeriods raise ALARM.
    """
    import datetime

    stats = [m for m in alarm.get("Metrics", []) if "MetricStat" in m]
    period = stats[0]["MetricStat"]["Period"] if stats else alarm["Period"]
    end = datetime.datetime.now(datetime.timezone.utc)
    start = end - datetime.timedelta(seconds=period * alarm["EvaluationPeriods"])
    queries = [{"Id": m["Id"], "MetricStat": m["MetricStat"], "ReturnData": True} for m in stats]
    results = cw.get_metric_data(MetricDataQueries=queries, StartTime=start, EndTime=end)
    points = sum(len(r["Values"]) for r in results["MetricDataResults"])
    missing = alarm.get("TreatMissingData", "missing")
    breaching = alarm["EvaluationPeriods"] if points == 0 and missing == "breaching" else 0
    needed = alarm.get("DatapointsToAlarm", alarm["EvaluationPeriods"])
    state = "ALARM" if breaching >= needed else "OK or INSUFFICIENT_DATA"
    print(
        f"   HEARTBEAT        {alarm['AlarmName']}: {points} data points in moto for"
        f" {'/'.join(q['Id'] for q in queries)} over {alarm['EvaluationPeriods']} x {period} s;"
        f" missing data {missing}: {breaching} of {alarm['EvaluationPeriods']} periods breaching,"
        f" {needed} needed -> {state}"
    )
    return state


def report_alarms(cw, created, errors):
    """Prints each alarm as moto's DescribeAlarms returns it; checks the heartbeat's definition."""
    problems = []
    for logical, err in sorted(errors.items()):
        print(f"   {'ALARM REFUSED':16} {logical}: {err}")
        problems.append(logical)
    described = {}
    if created:
        names = list(created.values())
        for i in range(0, len(names), 100):
            for a in cw.describe_alarms(AlarmNames=names[i : i + 100])["MetricAlarms"]:
                described[a["AlarmName"]] = a
    heartbeats = 0
    for logical, name in sorted(created.items()):
        a = described.get(name)
        if a is None:
            print(f"   {'ALARM MISSING':16} {logical}")
            problems.append(logical)
            continue
        what = a.get("MetricName") or "+".join(m["Id"] for m in a.get("Metrics", []))
        print(
            f"   {'ALARM CREATED':16} {logical}: {what} {a['ComparisonOperator']} {a['Threshold']:g}"
            f" for {a.get('DatapointsToAlarm', a['EvaluationPeriods'])} of {a['EvaluationPeriods']},"
            f" missing data {a.get('TreatMissingData', 'missing')}, state {a['StateValue']}"
        )
        if logical.startswith("HeartbeatAlarm"):
            heartbeats += 1
            expr = [m for m in a.get("Metrics", []) if m.get("ReturnData")]
            if not (
                a.get("TreatMissingData") == "breaching"
                and a["ComparisonOperator"] == "LessThanThreshold"
                and a["Threshold"] == 1
                and len(expr) == 1
                and expr[0].get("Expression") == "FILL(invocations, 0) - FILL(errors, 0)"
            ):
                print(f"   HEARTBEAT WRONG  {logical}: {a}")
                problems.append(logical)
            elif evaluate_on_missing_data(cw, a) != "ALARM":
                problems.append(logical)
    if heartbeats != 1:
        print(f"   HEARTBEAT COUNT  {heartbeats} heartbeat alarms created, expected 1")
        problems.append("HeartbeatAlarm")
    return problems


def deploy(cfn, name, template, parameters=None):
    params = [{"ParameterKey": k, "ParameterValue": v} for k, v in (parameters or {}).items()]
    try:
        cfn.create_stack(
            StackName=name,
            TemplateBody=json.dumps(template),
            Parameters=params,
            Capabilities=["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM", "CAPABILITY_AUTO_EXPAND"],
        )
    except Exception as e:  # moto refuses the whole stack
        return None, str(e)
    for _ in range(600):
        stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
        if not stack["StackStatus"].endswith("IN_PROGRESS"):
            break
        time.sleep(0.1)
    return stack, None


def report(cfn, name, stack, error, template, removed):
    print(f"\n== {name}")
    for logical, rtype in sorted(removed.items()):
        print(f"   {'MOTO CANNOT':16} {rtype:40} {logical} (removed before create)")
    declared = {k: v["Type"] for k, v in template.get("Resources", {}).items()}
    if error:
        print(f"   stack refused: {error}")
        return {"refused": True, "failed": set(declared.values())}
    print(f"   stack status: {stack['StackStatus']} {stack.get('StackStatusReason', '')}")
    created = {
        r["LogicalResourceId"]: r
        for r in cfn.describe_stack_resources(StackName=name)["StackResources"]
        if "LogicalResourceId" in r
    }
    missing = set()
    for logical, rtype in sorted(declared.items()):
        r = created.get(logical)
        status = r["ResourceStatus"] if r else "NOT CREATED"
        if status != "CREATE_COMPLETE":
            missing.add(rtype)
        print(f"   {status:16} {rtype:40} {logical}")
    outputs = {
        o["OutputKey"]: o.get("OutputValue")
        for o in stack.get("Outputs", [])
        if not o["OutputKey"].startswith("MotoAlarmValue")
    }
    print(f"   outputs: {sorted(outputs)}")
    return {"refused": False, "failed": missing, "status": stack["StackStatus"]}


def sam_local_invoke():
    docker = shutil.which("docker")
    ok = False
    if docker:
        ok = subprocess.run([docker, "info"], capture_output=True).returncode == 0
    if not ok:
        print(
            "\nsam local invoke: skipped - no Docker engine on this machine (`docker info` fails)."
            " Where Docker runs: sam build && sam local invoke ArchiverFunction -e"
            " events/msk-event.json --parameter-overrides ..."
        )
        return
    env = dict(os.environ, SAM_CLI_TELEMETRY="0", AWS_DEFAULT_REGION=REGION)
    r = subprocess.run(
        [".venv/bin/sam", "local", "invoke", "ArchiverFunction", "-e", "events/msk-event.json",
         "--parameter-overrides", "BucketName=moto-archive InputTopic=vehicle-telemetry "
         "ClusterArn=arn:aws:kafka:us-east-1:123456789012:cluster/c/abcd-1"],
        env=env, capture_output=True, text=True, timeout=600)
    print("\nsam local invoke: exit", r.returncode)
    print(r.stdout[-2000:], r.stderr[-2000:])


def main(cdk_paths):
    templates = [(n, resolve_conditions(sam_template(p), p), p) for n, p in SAM_CASES.items()]
    for i, path in enumerate(cdk_paths):
        # A stack name allows letters, digits and hyphens only (the documented commands' folders
        # are named after their file, e.g. command-README.md-65), and 128 characters at most.
        folder = re.sub(r"[^A-Za-z0-9-]", "-", os.path.basename(os.path.dirname(path)))
        name = f"cdk-{i}-{folder}"[:128]
        templates.append((name, resolve_conditions(cdk_template(path), {}), {}))
    proc, url = start_moto()
    summary = {}
    try:
        s3 = client("s3", url)
        cfn = client("cloudformation", url)
        cw = client("cloudwatch", url)
        for name, template, params in templates:
            # Each stack in an empty account: documented configurations share bucket names, and
            # bucket names are global (BucketAlreadyExists for every stack after the first).
            reset = urllib.request.Request(url + "/moto-api/reset", method="POST")
            urllib.request.urlopen(reset, timeout=30).close()
            s3.create_bucket(Bucket=ASSET_BUCKET)
            s3.put_object(Bucket=ASSET_BUCKET, Key="function.zip", Body=stand_in_jar())
            alarms, alarm_outputs = alarm_deploy_plan(template, params)
            deployable, removed = without_unsupported(template)
            deployable["Outputs"] = {**deployable.get("Outputs", {}), **without_unsupported(
                {"Resources": template["Resources"], "Outputs": alarm_outputs})[0]["Outputs"]}
            stack, error = deploy(cfn, name, deployable, params)
            summary[name] = report(cfn, name, stack, error, deployable, removed)
            summary[name]["removed"] = set(removed.values())
            summary[name]["alarm_problems"] = []
            if stack is not None and stack["StackStatus"] == "CREATE_COMPLETE":
                resolved = {o["OutputKey"]: o.get("OutputValue") for o in stack.get("Outputs", [])}
                created, errors = alarms_from_outputs(cw, name, alarms, resolved)
                summary[name]["alarm_problems"] = report_alarms(cw, created, errors)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    unsupported = set()
    for r in summary.values():
        unsupported |= r["failed"] | r["removed"]
    print("\n== summary")
    for name, r in summary.items():
        state = "refused" if r["refused"] else r["status"]
        print(
            f"   {name}: {state}; removed as unsupported: {sorted(r['removed'])};"
            f" failed in moto: {sorted(r['failed']) or 'none'};"
            f" alarm problems: {r['alarm_problems'] or 'none'}"
        )
    print(f"   resource types moto could not create: {sorted(unsupported) or 'none'}")
    sam_local_invoke()
    bad = [
        n
        for n, r in summary.items()
        if r["refused"] or r["status"] != "CREATE_COMPLETE" or r["alarm_problems"]
    ]
    return 1 if bad and os.environ.get("MOTO_DEPLOY_STRICT") == "1" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
