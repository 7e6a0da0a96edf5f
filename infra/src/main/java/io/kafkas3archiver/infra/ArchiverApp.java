package io.kafkas3archiver.infra;

import software.amazon.awscdk.App;

/** Entry point of the CDK app. */
public final class ArchiverApp {
  private ArchiverApp() {}

  public static void main(String[] args) {
    App app = new App();
    app.synth();
  }
}
