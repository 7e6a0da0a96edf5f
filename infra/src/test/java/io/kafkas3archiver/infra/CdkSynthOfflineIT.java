package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real `cdk synth` (the CLI, cdk.json, .ci/cdk-app) with no AWS credentials and, where the
 * kernel allows it, no network at all (a fresh network namespace via `unshare -rn`). Elsewhere all
 * proxies point at a closed port, so any HTTP call the CLI makes fails the synth.
 */
class CdkSynthOfflineIT {

  @Test
  void shouldSynthesizeWithoutCredentialsOrNetwork(@TempDir Path out) throws Exception {
    Path cdk = Tools.require(".ci/node_modules/.bin/cdk");
    List<String> command = new ArrayList<>();
    if (Tools.run(List.of("unshare", "-rn", "true"), Tools.ROOT, Map.of(), 30).exitCode() == 0) {
      command.addAll(List.of("unshare", "-rn"));
    }
    command.addAll(
        List.of(
            cdk.toString(),
            "synth",
            "--quiet",
            "--output",
            out.toString(),
            "-c",
            "inputTopic=vehicle-telemetry",
            "-c",
            "clusterArn=" + Fixtures.CLUSTER_ARN,
            "-c",
            "jarPath=" + Fixtures.jar()));
    String deadProxy = "http://127.0.0.1:9";
    Tools.Result r =
        Tools.run(
            command,
            Tools.ROOT.resolve("infra"),
            Map.of(
                "HTTP_PROXY", deadProxy,
                "HTTPS_PROXY", deadProxy,
                "http_proxy", deadProxy,
                "https_proxy", deadProxy,
                "NO_PROXY", ""),
            600);
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(Files.readString(out.resolve("KafkaS3Archiver.template.json")))
        .contains("AWS::Lambda::EventSourceMapping");
  }
}
