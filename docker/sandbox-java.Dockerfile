# Java 21 (Debian 13's default JDK) and Maven 3.9 on the toolchain base, with Debian's packaged
# Maven plugins (clean, resources, compiler, surefire, jar, install) and JUnit 4 and 5 in
# /usr/share/maven-repo, which /etc/mavenrc makes Maven search first: a project on those builds
# and tests offline. Anything else comes from Maven Central through the egress proxy when the
# admin allows repo.maven.apache.org. Debian's Gradle is 4.4 (2017), so Gradle is not here: a
# project's ./gradlew fetches its own where services.gradle.org is allowed.
ARG BASE_IMAGE=weft/sandbox-toolchain-base:latest
FROM ${BASE_IMAGE}
USER 0:0
RUN apt-get update && apt-get install -y --no-install-recommends \
      openjdk-21-jdk-headless maven junit4 junit5 libsurefire-java \
      libmaven-clean-plugin-java libmaven-compiler-plugin-java libmaven-resources-plugin-java \
      libmaven-jar-plugin-java libmaven-install-plugin-java \
 && apt-get clean && rm -rf /var/lib/apt/lists/* && java -version && mvn -version
COPY sandbox-java/mavenrc /etc/mavenrc
# Last: the runners change more often than the packages above (see the base's Dockerfile).
COPY sandbox-runtime/weft-run sandbox-runtime/weft-exec sandbox-runtime/weft-idle sandbox-runtime/weft-serve /usr/local/bin/
USER 10001:10001
