package io.parityfs.raid.array.assembly;

import io.parityfs.raid.array.drive.DriveState;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.DriveLabel;
import io.parityfs.raid.array.format.DrivePlacement;
import io.parityfs.raid.array.format.DriveRole;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/**
 * An array as found on its drives: the configuration recorded in the labels, the current
 * generation, every slot with its {@link DriveState} and drive, and the candidates that were not
 * taken (with the reason). Produced by {@link ArrayLabels#create} and {@link
 * ArrayLabels#assemble}; immutable, and a snapshot: a generation bump returns a new one.
 */
public final class AssembledArray {
  private final DriveLabel reference;
  private final List<ArraySlot> slots;
  private final List<RejectedDrive> rejected;

  /**
   * @param reference a label of the current generation (its array-wide fields are used)
   * @param present slot to drive directory and label, for the drives of the current generation
   */
  AssembledArray(
      DriveLabel reference, Map<Integer, Member> present,
      List<RejectedDrive> rejected) {
    this.reference = reference;
    List<ArraySlot> s = new ArrayList<>(reference.slotCount());
    for (int i = 0; i < reference.slotCount(); i++) {
      Member d = present.get(i);
      if (d == null) {
        s.add(new ArraySlot(
            i, reference.isFailed(i) ? DriveState.FAILED : DriveState.MISSING, null, null));
      } else {
        DriveState state = reference.isFailed(i) ? DriveState.FAILED
            : reference.isRebuilding(i) ? DriveState.REBUILDING
            : d.label().role() == DriveRole.SPARE ? DriveState.SPARE : DriveState.ONLINE;
        s.add(new ArraySlot(i, state, d.drive(), d.label()));
      }
    }
    this.slots = List.copyOf(s);
    this.rejected = List.copyOf(rejected);
  }

  /** A drive of the current generation and the slot-holding label it carries. */
  record Member(Path drive, DriveLabel label) {}

  /** The array's id. */
  public UUID arrayId() {
    return reference.arrayId();
  }

  /** The configuration recorded in the labels. */
  public ArrayConfig config() {
    return reference.config();
  }

  /** The current generation: the newest found among the array's drives. */
  public long generation() {
    return reference.generation();
  }

  /** Bit i set: slot i is failed at the current generation. */
  public long failedSlots() {
    return reference.failedSlots();
  }

  /**
   * Bit i set: the drive in slot i is being rebuilt at the current generation (a replacement or a
   * promoted hot spare, {@link DriveState#REBUILDING} when present) until {@link
   * ArrayLabels#finishRebuild} clears the bit.
   */
  public long rebuildingSlots() {
    return reference.rebuildingSlots();
  }

  /** When the array was created. */
  public Instant created() {
    return reference.created();
  }

  /** How many slots (data and spares) the array has. */
  public int slotCount() {
    return reference.slotCount();
  }

  /**
   * How many slots hold data: slots {@code 0..dataSlots()-1}, the numbering {@link DrivePlacement}
   * uses; the hot spares created with the array take the slots after them.
   */
  public int dataSlots() {
    return reference.slotCount() - reference.config().hotSpares();
  }

  /** Each slot's state, indexed by slot: the input {@link ArrayHealth} takes. */
  public DriveState[] driveStates() {
    DriveState[] d = new DriveState[slots.size()];
    for (ArraySlot s : slots) {
      d[s.slot()] = s.state();
    }
    return d;
  }

  /**
   * The states of the data slots only ({@code 0..dataSlots()-1}): the input for {@link
   * ArrayHealth#arrayState}, in which a spare slot that is absent, or was vacated by a promotion
   * ({@link ArrayLabels#promoteSpare}), must not count as a lost data slot.
   */
  public DriveState[] dataSlotStates() {
    return Arrays.copyOf(driveStates(), dataSlots());
  }

  /** A hot spare ready to take over a data slot (the lowest such slot), if the array has one. */
  public Optional<ArraySlot> spare() {
    return slots.stream().filter(s -> s.state() == DriveState.SPARE).findFirst();
  }

  /** Every slot, in slot order. */
  public List<ArraySlot> slots() {
    return slots;
  }

  /** Slot {@code slot}. */
  public ArraySlot slot(int slot) {
    if (slot < 0 || slot >= slots.size()) {
      throw new IllegalArgumentException(
          "slot (" + slot + ") must be in 0.." + (slots.size() - 1));
    }
    return slots.get(slot);
  }

  /** How many slots are in {@code state}. */
  public int count(DriveState state) {
    return (int) slots.stream().filter(s -> s.state() == state).count();
  }

  /** Candidates not taken into the array, in the order they were given. */
  public List<RejectedDrive> rejected() {
    return rejected;
  }

  DriveLabel reference() {
    return reference;
  }

  /** The drives that fill a slot, by slot. */
  Map<Integer, Member> members() {
    Map<Integer, Member> m = new TreeMap<>();
    for (ArraySlot s : slots) {
      if (s.drive() != null) {
        m.put(s.slot(), new Member(s.drive(), s.label()));
      }
    }
    return m;
  }

  @Override
  public String toString() {
    return "array " + arrayId() + " " + config() + " generation " + generation() + ": "
        + count(DriveState.ONLINE) + " online, " + count(DriveState.REBUILDING) + " rebuilding, "
        + count(DriveState.SPARE) + " spare, "
        + count(DriveState.FAILED) + " failed, " + count(DriveState.MISSING) + " missing, "
        + rejected.size() + " rejected";
  }
}
